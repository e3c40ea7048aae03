package io.herald.cli.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code herald relay recover} as a separate OS process, configured by the shipped {@code
 * relay.properties} with this class's database, slot and topics: its refusals (a relay holds the
 * leader lock; the topic holds nothing to start from) exit 1 and change nothing, {@code --dry-run
 * --json} shows the plan, and the recovery republishes every retained row and creates the slot. The
 * relay's part (refusing, then streaming from the recovered slot) is {@code RelaySlotRecoveryIT}.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelayRecoverCliIT {

  private static final long LOCK_KEY = 4851102017L;

  private StackContext stack;
  private String publicationEvents;
  private String deliveryEvents;
  private final List<UUID> rows = new ArrayList<>();
  private Path configDir;

  @BeforeAll
  void migrateAndWrite(StackContext stack) throws Exception {
    this.stack = stack;
    CaptureSettings capture = new CaptureSettings(stack.publication(), stack.slot());
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.CONSUMER, capture);
    publicationEvents = stack.topic("publication-events");
    deliveryEvents = stack.topic("delivery-events");
    stack.stack().kafka().createTopic(publicationEvents, 3);
    stack.stack().kafka().createTopic(deliveryEvents, 1);
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type,"
                    + " tenant_id, payload) VALUES (?, 'publication', ?, 'PublicationRequested',"
                    + " 't1', ?::jsonb)")) {
      io.herald.common.id.UuidV7 ids = io.herald.common.id.UuidV7.system();
      for (int i = 0; i < 12; i++) {
        UUID id = ids.get();
        insert.setObject(1, id);
        insert.setString(2, "t1/a-" + (i % 4) + "/dest-a");
        insert.setString(3, "{\"seq\": " + i + "}");
        insert.executeUpdate();
        rows.add(id);
      }
    }
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement drop =
            connection.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      drop.setString(1, stack.slot());
      drop.execute();
    }
    configDir = relayConfigDir();
  }

  @Test
  @Order(1)
  void shouldRefuseWithExitOneWhileARelayHoldsTheLeaderLock() throws Exception {
    try (Connection relay = stack.dataSource().getConnection();
        PreparedStatement lock = relay.prepareStatement("SELECT pg_advisory_lock(?)")) {
      lock.setLong(1, LOCK_KEY);
      lock.execute();
      Result result = HeraldProcess.run("--config-dir", configDir.toString(), "relay", "recover");

      assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
      assertThat(result.err()).contains("a relay holds the leader lock");
    }
    assertThat(slotExists()).isFalse();
  }

  @Test
  @Order(2)
  void shouldRefuseWhenTheTopicHoldsNothingToStartFrom() throws Exception {
    Result result = HeraldProcess.run("--config-dir", configDir.toString(), "relay", "recover");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("holds no event").contains("--all-retained");
    assertThat(slotExists()).isFalse();
    assertThat(eventIds()).isEmpty();
  }

  @Test
  @Order(3)
  void shouldShowThePlanAsJsonInADryRun() throws Exception {
    Result result =
        HeraldProcess.run(
            "--config-dir",
            configDir.toString(),
            "relay",
            "recover",
            "--dry-run",
            "--all-retained",
            "--json");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode report = Json.mapper().readTree(result.out());
    assertThat(report.path("dryRun").asBoolean()).isTrue();
    assertThat(report.path("previousSlot").asText()).isEqualTo("missing");
    assertThat(report.path("outboxes").get(0).path("outbox").asText()).isEqualTo("writer.outbox");
    assertThat(report.path("outboxes").get(0).path("republished").asLong()).isEqualTo(12);
    assertThat(slotExists()).isFalse();
    assertThat(eventIds()).isEmpty();
  }

  @Test
  @Order(4)
  void shouldRepublishEveryRetainedRowAndCreateTheSlot() throws Exception {
    Result result =
        HeraldProcess.run(
            "--config-dir", configDir.toString(), "relay", "recover", "--all-retained");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("slot " + stack.slot() + ": was missing, created again at ")
        .contains("republished 12 row(s)")
        .contains("RECOVERED");
    // Nothing but the report: routing the rows must not make a library print its own notices.
    assertThat(result.err()).as(result.toString()).isEmpty();
    assertThat(slotExists()).isTrue();
    assertThat(eventIds()).containsExactlyInAnyOrderElementsOf(rows);
  }

  private boolean slotExists() throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement("SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
      statement.setString(1, stack.slot());
      try (ResultSet found = statement.executeQuery()) {
        return found.next();
      }
    }
  }

  private List<UUID> eventIds() {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.bootstrapServers(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false);
    List<UUID> ids = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(publicationEvents, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(publicationEvents, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Set<TopicPartition> done = new HashSet<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (done.size() < partitions.size() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          ids.add(
              UUID.fromString(
                  new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8)));
        }
        for (TopicPartition partition : partitions) {
          if (consumer.position(partition) >= end.get(partition)) {
            done.add(partition);
          }
        }
      }
    }
    return ids;
  }

  /** The shipped relay.properties pointed at this class's database, slot and topics. */
  private Path relayConfigDir() throws IOException {
    Path config = Files.createDirectories(Path.of("target", "relay-recover-cli-it"));
    PostgresServer postgres = stack.stack().postgres();
    Properties properties = new Properties();
    ShippedConfig.of("relay").properties().forEach(properties::setProperty);
    properties.setProperty("relay.kafka.bootstrap-servers", stack.bootstrapServers());
    properties.setProperty("relay.topics.publication-events", publicationEvents);
    properties.setProperty("relay.topics.delivery-events", deliveryEvents);
    properties.setProperty("debezium.source.database.hostname", postgres.host());
    properties.setProperty("debezium.source.database.port", Integer.toString(postgres.port()));
    properties.setProperty("debezium.source.database.dbname", stack.database());
    properties.setProperty("debezium.source.database.user", stack.user());
    properties.setProperty("debezium.source.database.password", stack.password());
    properties.setProperty("debezium.source.slot.name", stack.slot());
    properties.setProperty("debezium.source.publication.name", stack.publication());
    properties.setProperty("debezium.source.offset.storage.topic", stack.topic("relay-offsets"));
    try (Writer writer =
        Files.newBufferedWriter(config.resolve("relay.properties"), StandardCharsets.UTF_8)) {
      properties.store(writer, "RelayRecoverCliIT");
    }
    return config;
  }
}
