package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.recover.RecoveryRefusedException;
import io.herald.relay.recover.RecoveryReport;
import io.herald.relay.recover.SlotRecovery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code herald relay recover} against a real PostgreSQL and Kafka: a dropped slot, a slot that
 * PostgreSQL invalidated (a small {@code max_slot_wal_keep_size}, WAL written while the relay was
 * down), a slot recreated by hand with the offsets topic deleted (F10), each refused by the relay
 * naming the command, recovered, and followed by a relay that streams again, with every event of
 * both outboxes (the writer's and the consumer's status events) in Kafka; and a retained window too
 * short, which the recovery refuses without publishing anything. The scenarios run in order on one
 * slot, each starting where the previous one left it.
 */
@HeraldIntegrationTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelaySlotRecoveryIT {

  private static final int EXIT_REFUSED = 2;
  private static final Duration ARRIVAL = Duration.ofMinutes(2);
  private static final SlotRecovery.Options DEFAULTS =
      new SlotRecovery.Options(Duration.ofMinutes(10), false, false);

  private static RelayFixture fixture;
  private static OutboxRows writer;
  private static OutboxRows consumer;
  private static final List<UUID> written = new ArrayList<>();
  private static final List<UUID> statusEvents = new ArrayList<>();

  @BeforeAll
  static void setUp(StackContext context) {
    fixture = new RelayFixture(context, "slot-recovery");
    writer = fixture.writerOutbox(3).timeOrderedIds();
    consumer = fixture.consumerOutbox(2).timeOrderedIds();
  }

  @Test
  @Order(1)
  void shouldRecoverEveryEventOfBothOutboxesWhenTheSlotWasDropped() throws Exception {
    try (RelayFixture.Relay relay = fixture.start();
        EventCollector events = fixture.collect(fixture.publicationEvents);
        EventCollector statuses = fixture.collect(fixture.deliveryEvents)) {
      write(30, 10);
      events.awaitIds(written, ARRIVAL);
      statuses.awaitIds(statusEvents, ARRIVAL);
      assertThat(relay.process().terminate()).isIn(0, 143);
    }
    slot("SELECT pg_drop_replication_slot(?)");
    write(30, 10); // no slot retains their WAL: only the outbox still has them

    assertRefused("does not exist");
    // No overlap: the test's transactions run one after the other, and the plan must then leave
    // out what Kafka already has.
    RecoveryReport report = recover(new SlotRecovery.Options(Duration.ZERO, false, false));
    System.out.println("RelaySlotRecoveryIT: dropped slot recovered: " + report);
    assertThat(report.previousSlot()).isEqualTo("missing");
    assertThat(report.consistentPoint()).isPresent();
    assertThat(report.outboxes())
        .extracting(RecoveryReport.Outbox::outbox)
        .containsExactly("writer.outbox", "consumer.outbox");
    assertThat(report.outboxes().get(0).republished()).isBetween(30L, (long) written.size() - 1);

    streamAgainAndAssertNothingLost();
  }

  @Test
  @Order(2)
  void shouldRecoverWhenPostgresInvalidatedTheSlot() throws Exception {
    setSlotWalLimit("'1MB'");
    try {
      write(20, 5);
      fillWal();
      Awaitility.await("slot invalidated")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                execute("CHECKPOINT");
                return "lost".equals(walStatus());
              });
    } finally {
      setSlotWalLimit("DEFAULT");
    }

    assertRefused("invalidated");
    RecoveryReport report = recover(DEFAULTS);
    System.out.println("RelaySlotRecoveryIT: invalidated slot recovered: " + report);
    assertThat(report.previousSlot()).startsWith("invalidated");

    streamAgainAndAssertNothingLost();
  }

  @Test
  @Order(3)
  void shouldRecoverWhenTheSlotWasRecreatedAndTheOffsetsTopicDeleted() throws Exception {
    slot("SELECT pg_drop_replication_slot(?)");
    write(10, 5);
    slot("SELECT pg_create_logical_replication_slot(?, 'pgoutput')");
    try (Admin admin = admin()) {
      admin.deleteTopics(List.of(fixture.offsetsTopic)).all().get(30, TimeUnit.SECONDS);
      Awaitility.await("offsets topic deleted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> !admin.listTopics().names().get().contains(fixture.offsetsTopic));
    }
    write(10, 5);

    assertRefused("has moved from");
    RecoveryReport report = recover(DEFAULTS);
    System.out.println("RelaySlotRecoveryIT: recreated slot without offsets recovered: " + report);
    assertThat(report.previousSlot()).isEqualTo("usable");

    streamAgainAndAssertNothingLost();
  }

  @Test
  @Order(4)
  void shouldRefuseAndPublishNothingWhenTheRetainedWindowIsTooShort() throws Exception {
    slot("SELECT pg_drop_replication_slot(?)");
    execute("DELETE FROM writer.outbox"); // a purge that went past the last event in Kafka
    List<UUID> gap = writer.insert(10, 5);
    Map<TopicPartition, Long> before = endOffsets();

    assertThatThrownBy(() -> recover(DEFAULTS))
        .isInstanceOf(RecoveryRefusedException.class)
        .hasMessageContaining("writer.outbox")
        .hasMessageContaining("does not reach back to the last event in Kafka")
        .hasMessageMatching("(?s).* \\d+ offset \\d+ \\(event [0-9a-f-]{36}, written .*")
        .hasMessageContaining("nothing was published and the slot was not changed")
        .satisfies(e -> System.out.println("RelaySlotRecoveryIT: refused: " + e.getMessage()));

    assertThat(endOffsets()).as("nothing published").isEqualTo(before);
    assertThat(walStatus()).as("the slot was not created").isNull();
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      events.drain(Duration.ofSeconds(2));
      assertThat(events.ids()).doesNotContainAnyElementsOf(ids(gap));
    }
  }

  private static void write(int writerRows, int perTransaction) throws SQLException {
    written.addAll(writer.insert(writerRows, perTransaction));
    statusEvents.addAll(consumer.insert(writerRows / 3, perTransaction));
  }

  /**
   * A relay on the recovered slot, more rows, then every row ever written is in Kafka, in commit
   * order per key, and every copy of an event (the relay's and the recovery's) is the same record.
   */
  private static void streamAgainAndAssertNothingLost() throws Exception {
    try (RelayFixture.Relay relay = fixture.start();
        EventCollector events = fixture.collect(fixture.publicationEvents);
        EventCollector statuses = fixture.collect(fixture.deliveryEvents)) {
      write(15, 5);
      events.awaitIds(written, ARRIVAL);
      statuses.awaitIds(statusEvents, ARRIVAL);
      events.assertIdsExactly(written);
      statuses.assertIdsExactly(statusEvents);
      events.assertCommitOrderPerKey();
      statuses.assertCommitOrderPerKey();
      assertCopiesIdentical(events.events());
      assertCopiesIdentical(statuses.events());
      System.out.printf(
          "RelaySlotRecoveryIT: lost 0 of %d events and 0 of %d status events; duplicates %d"
              + " and %d%n",
          written.size(), statusEvents.size(), events.duplicates(), statuses.duplicates());
      assertThat(relay.process().terminate()).isIn(0, 143);
    }
  }

  private static void assertCopiesIdentical(List<ReceivedEvent> events) {
    Map<String, ReceivedEvent> first = new HashMap<>();
    for (ReceivedEvent event : events) {
      ReceivedEvent original = first.putIfAbsent(event.id(), event);
      if (original != null) {
        assertThat(List.of(event.partition(), event.key(), event.value(), event.headers()))
            .as("republished copy of %s", event.id())
            .isEqualTo(
                List.of(
                    original.partition(), original.key(), original.value(), original.headers()));
      }
    }
  }

  private static void assertRefused(String reason) throws Exception {
    try (RelayFixture.Relay relay = fixture.start()) {
      int exit = relay.process().awaitExit(120);
      String log = relay.process().log();
      assertThat(exit).as("relay exit; log %s", relay.process().logFile()).isEqualTo(EXIT_REFUSED);
      assertThat(log)
          .contains("Relay refuses to start")
          .contains(reason)
          .contains("herald relay recover");
    }
  }

  private static RecoveryReport recover(SlotRecovery.Options options) throws Exception {
    RelayConfig config = RelayConfig.load(fixture.properties(Map.of()), Map.of());
    return new SlotRecovery(config, fixture.dataSource(), Clock.systemUTC(), new ObjectMapper())
        .run(options);
  }

  private static Map<TopicPartition, Long> endOffsets() throws Exception {
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (String topic : List.of(fixture.publicationEvents, fixture.deliveryEvents)) {
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()
            .forEach(
                p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      }
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
          .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.context().bootstrapServers()));
  }

  private static List<String> ids(List<UUID> ids) {
    return ids.stream().map(UUID::toString).toList();
  }

  /** About 40 MB of WAL in a table outside the publication. */
  private static void fillWal() throws SQLException {
    execute("CREATE TABLE IF NOT EXISTS public.wal_filler (n int, pad text)");
    for (int i = 0; i < 4; i++) {
      execute(
          "INSERT INTO public.wal_filler SELECT g, repeat(md5(g::text), 32) FROM"
              + " generate_series(1, 10000) g");
      execute("SELECT pg_switch_wal()");
    }
  }

  /** Server-wide: restored to the default in a finally block by the test that lowers it. */
  private static void setSlotWalLimit(String value) throws SQLException {
    execute("ALTER SYSTEM SET max_slot_wal_keep_size = " + value);
    execute("SELECT pg_reload_conf()");
  }

  private static String walStatus() throws SQLException {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?")) {
      statement.setString(1, fixture.context().slot());
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }

  private static void execute(String sql) throws SQLException {
    try (Connection connection = fixture.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static void slot(String sql) throws SQLException {
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, fixture.context().slot());
      statement.executeQuery().close();
    }
  }
}
