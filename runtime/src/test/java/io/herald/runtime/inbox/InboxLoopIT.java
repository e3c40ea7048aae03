package io.herald.runtime.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.runtime.db.Transactions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared inbox loop against a real Kafka and PostgreSQL: every record applied once, what never
 * applies set aside without blocking its partition, offsets committed past both, a retriable
 * failure re-read, the lifecycle moving one way, and a stop bounded while the group rebalances.
 */
@HeraldIntegrationTest
class InboxLoopIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @BeforeAll
  static void schema(StackContext stack) throws SQLException {
    try (Connection c = stack.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE inbox (message_id text PRIMARY KEY)");
      // The database refuses one value: a permanent failure that only that record causes.
      s.execute(
          "CREATE TABLE applied (message_id text PRIMARY KEY, value text NOT NULL"
              + " CHECK (value <> 'poison'))");
    }
  }

  @Test
  void shouldApplyEachRecordOnceAndSetAsideWhatNeverAppliesWithoutBlockingThePartition(
      StackContext stack) throws Exception {
    String topic = stack.topic("set-aside");
    stack.stack().kafka().createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(stack)) {
      for (int i = 0; i < 40; i++) {
        String value = i == 7 ? "garbage" : i == 23 ? "poison" : "v" + i;
        producer.send(record(topic, "a-" + i, value)).get();
      }
      producer.send(record(topic, "a-3", "v3")).get(); // a redelivery: changes nothing
    }
    RecordingHandler handler = new RecordingHandler(stack.dataSource(), 0);
    InboxSettings settings = settings(stack, topic, "set-aside");

    try (InboxLoop<String, Boolean> loop =
        new InboxLoop<>(settings, handler, new SimpleMeterRegistry())) {
      loop.start();

      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "a-%") == 38);
      await().atMost(WAIT).until(() -> committedOffset(stack, settings) == 41);
      assertThat(handler.rejected)
          .containsOnly(
              Map.entry("a-7", "invalid_value"), Map.entry("a-23", "rejected_by_database"));
      assertThat(handler.redelivered.get()).isEqualTo(1);
      assertThat(loop.health().degraded()).isFalse();
    }
  }

  @Test
  void shouldApplyWhatArrivesWithinTheLingerInTheSameBatch(StackContext stack) throws Exception {
    String topic = stack.topic("linger");
    stack.stack().kafka().createTopic(topic, 1);
    RecordingHandler handler = new RecordingHandler(stack.dataSource(), 0);
    InboxSettings settings = settings(stack, topic, "linger", Duration.ofSeconds(3));

    try (KafkaProducer<byte[], byte[]> producer = producer(stack);
        InboxLoop<String, Boolean> loop =
            new InboxLoop<>(settings, handler, new SimpleMeterRegistry())) {
      loop.start();
      producer.send(record(topic, "c-0", "v0")).get();
      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "c-%") == 1);
      // Three records sent 300 ms apart: without the linger, each poll would find one and apply
      // it alone.
      for (int i = 1; i <= 3; i++) {
        producer.send(record(topic, "c-" + i, "v" + i)).get();
        Thread.sleep(300);
      }

      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "c-%") == 4);
      assertThat(handler.applies.get()).as("batches applied: c-0, then c-1 to c-3").isEqualTo(2);
      await().atMost(WAIT).until(() -> committedOffset(stack, settings) == 4);
    }
  }

  @Test
  void shouldDropALingeringBatchWhenTheGroupRebalancesAndApplyEachRecordOnce(StackContext stack)
      throws Exception {
    String topic = stack.topic("linger-rebalance");
    stack.stack().kafka().createTopic(topic, 2);
    // Longer than the second member's join, which the first learns of by its next heartbeat.
    InboxSettings settings = settings(stack, topic, "linger-rebalance", Duration.ofSeconds(8));
    RecordingHandler first = new RecordingHandler(stack.dataSource(), 0);
    RecordingHandler second = new RecordingHandler(stack.dataSource(), 0);
    SimpleMeterRegistry firstMeters = new SimpleMeterRegistry();
    try (KafkaProducer<byte[], byte[]> producer = producer(stack);
        InboxLoop<String, Boolean> firstLoop = new InboxLoop<>(settings, first, firstMeters);
        InboxLoop<String, Boolean> secondLoop =
            new InboxLoop<>(settings, second, new SimpleMeterRegistry())) {
      firstLoop.start();
      await().atMost(WAIT).until(() -> groupState(stack, settings) == GroupState.STABLE);
      // One record per partition: the first member polls them and lingers on.
      for (int partition = 0; partition < 2; partition++) {
        producer
            .send(
                new ProducerRecord<>(
                    topic,
                    partition,
                    ("r-" + partition).getBytes(StandardCharsets.UTF_8),
                    "v".getBytes(StandardCharsets.UTF_8)))
            .get();
      }
      // The second member joins while the first lingers; each then owns one partition. Had the
      // first applied its batch, the member now owning the other partition would read its record
      // again from the uncommitted offset and find it in the inbox.
      secondLoop.start();

      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "r-%") == 2);
      await().atMost(WAIT).until(() -> committedOffset(stack, settings, 0) == 1);
      await().atMost(WAIT).until(() -> committedOffset(stack, settings, 1) == 1);
      assertThat(first.redelivered.get() + second.redelivered.get())
          .as("records found already applied")
          .isZero();
      assertThat(firstMeters.get("herald.test.inbox.linger.dropped").counter().count())
          .as("batches the first member dropped because the group rebalanced as it lingered")
          .isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void shouldReadABatchAgainAfterARetriableFailureAndApplyItOnce(StackContext stack)
      throws Exception {
    String topic = stack.topic("retry");
    stack.stack().kafka().createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(stack)) {
      for (int i = 0; i < 20; i++) {
        producer.send(record(topic, "b-" + i, "v" + i)).get();
      }
    }
    RecordingHandler handler = new RecordingHandler(stack.dataSource(), 3);
    InboxSettings settings = settings(stack, topic, "retry");

    try (InboxLoop<String, Boolean> loop =
        new InboxLoop<>(settings, handler, new SimpleMeterRegistry())) {
      loop.start();

      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "b-%") == 20);
      await().atMost(WAIT).until(() -> committedOffset(stack, settings) == 20);
      assertThat(handler.failures.get()).isEqualTo(3);
      assertThat(handler.rejected).isEmpty();
      await().atMost(WAIT).until(() -> !loop.health().degraded());
    }
  }

  @Test
  void shouldCommitWhatItAppliedBeforeItsPartitionsMoveToAnotherMember(StackContext stack)
      throws Exception {
    String topic = stack.topic("hand-over");
    stack.stack().kafka().createTopic(topic, 4);
    InboxSettings settings = settings(stack, topic, "hand-over");
    RecordingHandler first = new RecordingHandler(stack.dataSource(), 0);
    RecordingHandler second = new RecordingHandler(stack.dataSource(), 0);
    try (KafkaProducer<byte[], byte[]> producer = producer(stack);
        InboxLoop<String, Boolean> firstLoop =
            new InboxLoop<>(settings, first, new SimpleMeterRegistry());
        InboxLoop<String, Boolean> secondLoop =
            new InboxLoop<>(settings, second, new SimpleMeterRegistry())) {
      firstLoop.start();
      int sent = 0;
      // Records keep coming while the second member joins, so the first never idles into a
      // commit: only the hand-over's commit keeps the second from reading them again.
      while (sent < 100 || appliedCount(stack.dataSource(), "h-%") < 50) {
        producer.send(record(topic, "h-" + sent, "v" + sent++)).get();
      }
      secondLoop.start();
      long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
      while (System.nanoTime() < until) {
        producer.send(record(topic, "h-" + sent, "v" + sent++)).get();
      }
      int total = sent;

      await().atMost(WAIT).until(() -> appliedCount(stack.dataSource(), "h-%") == total);
      assertThat(first.redelivered.get() + second.redelivered.get()).isZero();
      assertThat(second.applies.get()).isPositive();
    }
  }

  @Test
  void shouldCommitWhatItAppliedWhenItCloses(StackContext stack) throws Exception {
    String topic = stack.topic("close-commit");
    stack.stack().kafka().createTopic(topic, 1);
    InboxSettings settings = settings(stack, topic, "close-commit");
    RecordingHandler handler = new RecordingHandler(stack.dataSource(), 0);
    try (KafkaProducer<byte[], byte[]> producer = producer(stack)) {
      InboxLoop<String, Boolean> loop =
          new InboxLoop<>(settings, handler, new SimpleMeterRegistry());
      loop.start();
      int sent = 0;
      // Closed while records keep coming: no idle poll has committed the last ones.
      while (sent < 200 || appliedCount(stack.dataSource(), "c-%") < 100) {
        producer.send(record(topic, "c-" + sent, "v" + sent++)).get();
      }
      loop.close();

      assertThat(committedOffset(stack, settings))
          .isEqualTo(appliedCount(stack.dataSource(), "c-%"));
    }
  }

  @Test
  void shouldMoveThroughItsLifecycleOnlyOnce(StackContext stack) {
    InboxLoop<String, Boolean> loop =
        new InboxLoop<>(
            settings(stack, stack.topic("lifecycle"), "lifecycle"),
            new RecordingHandler(stack.dataSource(), 0),
            new SimpleMeterRegistry());
    assertThat(loop.state()).isEqualTo(InboxLoop.State.NEW);
    assertThat(loop.health().degraded()).isTrue();

    loop.start();
    assertThatThrownBy(loop::start).isInstanceOf(IllegalStateException.class);
    loop.close();
    loop.close();

    assertThat(loop.state()).isEqualTo(InboxLoop.State.STOPPED);
    assertThat(loop.health().detail()).isEqualTo("test events stopped");
    assertThatThrownBy(loop::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldStopWithinItsBoundWhileItsGroupWaitsForAMemberThatDoesNotRejoin(StackContext stack)
      throws Exception {
    String topic = stack.topic("stuck-join");
    stack.stack().kafka().createTopic(topic, 1);
    InboxSettings settings = settings(stack, topic, "stuck-join");
    // A member that joined, then stopped polling while its heartbeats go on (as one killed leaves
    // its session behind): a rebalance waits for it until its max.poll.interval.ms.
    Map<String, Object> member = new HashMap<>(InboxLoop.consumerProperties(settings));
    member.put(ConsumerConfig.CLIENT_ID_CONFIG, "stuck-member");
    member.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 120_000);
    KafkaConsumer<byte[], byte[]> stuck = new KafkaConsumer<>(member);
    try {
      stuck.subscribe(List.of(topic));
      await()
          .atMost(WAIT)
          .until(
              () -> {
                stuck.poll(Duration.ofMillis(100));
                return !stuck.assignment().isEmpty();
              });
      InboxLoop<String, Boolean> loop =
          new InboxLoop<>(
              settings, new RecordingHandler(stack.dataSource(), 0), new SimpleMeterRegistry());
      loop.start();
      await()
          .atMost(WAIT)
          .until(() -> groupState(stack, settings) == GroupState.PREPARING_REBALANCE);

      long closing = System.nanoTime();
      loop.close();
      Duration closed = Duration.ofNanos(System.nanoTime() - closing);

      // Without a bound of its own the consumer's close waits for the join, here up to 2 minutes.
      assertThat(closed).isLessThan(InboxLoop.KAFKA_CLOSE_WAIT.plusSeconds(5));
      assertThat(loop.state()).isEqualTo(InboxLoop.State.STOPPED);
    } finally {
      stuck.close(CloseOptions.timeout(Duration.ZERO));
    }
  }

  /** Applies values with an inbox row each; fails the first {@code failFirst} batches. */
  private static final class RecordingHandler implements InboxHandler<String, Boolean> {

    private final DataSource dataSource;
    private final AtomicInteger toFail;
    final AtomicInteger failures = new AtomicInteger();
    final AtomicInteger redelivered = new AtomicInteger();
    final AtomicInteger applies = new AtomicInteger();
    final Map<String, String> rejected = new ConcurrentHashMap<>();

    RecordingHandler(DataSource dataSource, int failFirst) {
      this.dataSource = dataSource;
      this.toFail = new AtomicInteger(failFirst);
    }

    @Override
    public Decoded<String> decode(ConsumerRecord<byte[], byte[]> record) {
      String key = new String(record.key(), StandardCharsets.UTF_8);
      String value = new String(record.value(), StandardCharsets.UTF_8);
      if (value.equals("garbage")) {
        return new Decoded.Invalid<>(record, "invalid_value", "not a value: " + value);
      }
      return new Decoded.Valid<>(record, key + "=" + value);
    }

    @Override
    public List<Boolean> apply(List<String> values) throws SQLException {
      if (toFail.getAndDecrement() > 0) {
        throw new SQLException("connection refused", "08001");
      }
      return Transactions.inTransaction(
          dataSource,
          connection -> {
            List<Boolean> results = new ArrayList<>();
            try (PreparedStatement inbox =
                    connection.prepareStatement(
                        "INSERT INTO inbox (message_id) VALUES (?) ON CONFLICT DO NOTHING");
                PreparedStatement apply =
                    connection.prepareStatement(
                        "INSERT INTO applied (message_id, value) VALUES (?, ?)")) {
              for (String value : values) {
                String[] parts = value.split("=", 2);
                inbox.setString(1, parts[0]);
                if (inbox.executeUpdate() == 0) {
                  results.add(false);
                  continue;
                }
                apply.setString(1, parts[0]);
                apply.setString(2, parts[1]);
                apply.executeUpdate();
                results.add(true);
              }
            }
            return results;
          });
    }

    @Override
    public Future<?> reject(Decoded.Invalid<String> invalid) {
      rejected.put(new String(invalid.record().key(), StandardCharsets.UTF_8), invalid.reason());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void applied(List<String> values, List<Boolean> results) {
      applies.incrementAndGet();
      results.stream().filter(applied -> !applied).forEach(r -> redelivered.incrementAndGet());
    }

    @Override
    public void failed(Exception failure) {
      failures.incrementAndGet();
    }
  }

  /** With a short linger, so that every test goes through it (rebalances, failures). */
  private static InboxSettings settings(StackContext stack, String topic, String group) {
    return settings(stack, topic, group, Duration.ofMillis(100));
  }

  private static InboxSettings settings(
      StackContext stack, String topic, String group, Duration linger) {
    return new InboxSettings(
        "test events",
        stack.bootstrapServers(),
        topic,
        stack.groupId(group),
        "inbox-loop-it",
        10,
        Duration.ofMillis(200),
        linger,
        Duration.ofMillis(200),
        Duration.ofSeconds(30),
        "herald.test.inbox",
        Map.of());
  }

  private static GroupState groupState(StackContext stack, InboxSettings settings)
      throws Exception {
    try (Admin admin = admin(stack)) {
      return admin
          .describeConsumerGroups(List.of(settings.groupId()))
          .all()
          .get()
          .get(settings.groupId())
          .groupState();
    }
  }

  private static Admin admin(StackContext stack) {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()));
  }

  private static KafkaProducer<byte[], byte[]> producer(StackContext stack) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String key, String value) {
    return new ProducerRecord<>(
        topic, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }

  private static int appliedCount(DataSource dataSource, String pattern) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement count =
            c.prepareStatement("SELECT count(*) FROM applied WHERE message_id LIKE ?")) {
      count.setString(1, pattern);
      try (ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }

  private static long committedOffset(StackContext stack, InboxSettings settings) throws Exception {
    return committedOffset(stack, settings, 0);
  }

  private static long committedOffset(StackContext stack, InboxSettings settings, int partition)
      throws Exception {
    try (Admin admin = admin(stack)) {
      OffsetAndMetadata offset =
          admin
              .listConsumerGroupOffsets(settings.groupId())
              .partitionsToOffsetAndMetadata()
              .get()
              .get(new TopicPartition(settings.topic(), partition));
      return offset == null ? -1 : offset.offset();
    }
  }
}
