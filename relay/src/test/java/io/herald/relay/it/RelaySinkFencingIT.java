package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.engine.RecordChangeEvent;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import io.herald.devstack.proxy.TcpProxy;
import io.herald.relay.engine.ProducerSettings;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import io.herald.relay.sink.KafkaBatchSink;
import io.herald.relay.sink.OutboxRecordConverter;
import io.herald.relay.sink.RecordingCommitter;
import io.herald.relay.sink.RelayPublishException;
import io.herald.relay.sink.SendRetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The sink's fencing on the real broker: a relay whose transaction is open when another relay of
 * the same slot takes over (what a leader frozen mid-batch holds) can commit none of it, and fails
 * with the fencing named; a producer the sink replaces itself is fenced the same way, so what it
 * left open is never visible; and a sink whose broker stops answering mid-transaction still closes
 * within its bound.
 */
@HeraldIntegrationTest
class RelaySinkFencingIT {

  private static final SendRetry RETRY =
      new SendRetry(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(20));

  /** Leaves two full batches open: the transaction stays open across the first handleBatch. */
  private static final KafkaBatchSink.Pipelining PIPELINING = new KafkaBatchSink.Pipelining(10, 2);

  @Test
  void shouldCommitNothingOfTheFormerLeaderOnceTheNewOneHasFencedIt(StackContext context)
      throws Exception {
    String topic = topic(context, "fenced");
    Map<String, Object> settings = settings(context);
    RecordingCommitter formerMarks = new RecordingCommitter();
    RecordingCommitter leaderMarks = new RecordingCommitter();

    try (KafkaProducer<byte[], byte[]> formerProducer = producer(settings);
        KafkaProducer<byte[], byte[]> leaderProducer = producer(settings)) {
      KafkaBatchSink former = sink(formerProducer);
      former.fence();
      // A full batch: sent into the open transaction, acknowledged, not committed.
      former.handleBatch(events(topic, "former", 0, 10), formerMarks);

      KafkaBatchSink leader = sink(leaderProducer);
      leader.fence();
      leader.handleBatch(events(topic, "leader", 0, 3), leaderMarks);

      // The former leader wakes and goes on with its next batch.
      assertThatThrownBy(() -> former.handleBatch(events(topic, "former", 10, 3), formerMarks))
          .isInstanceOf(RelayPublishException.class)
          .hasMessageContaining("fenced");
    }

    assertThat(formerMarks.processed).isEmpty();
    assertThat(leaderMarks.processed).hasSize(3);
    List<String> visible = readCommitted(context.bootstrapServers(), topic);
    assertThat(visible).containsExactly("leader-0", "leader-1", "leader-2");
  }

  @Test
  void shouldShowOnlyTheNewProducersCopiesWhenTheSinkReplacesOneLeftUnusable(StackContext context)
      throws Exception {
    String topic = topic(context, "replaced");
    Map<String, Object> settings = settings(context);
    List<KafkaProducer<byte[], byte[]>> made = new ArrayList<>();
    RecordingCommitter marks = new RecordingCommitter();

    // The first producer's records reach the broker in its open transaction; then its commit fails
    // as the broker's invalid-state refusal leaves a producer, with the transaction still open.
    KafkaBatchSink sink =
        sink(
            () -> {
              KafkaProducer<byte[], byte[]> producer =
                  made.isEmpty() ? unusableAtCommit(settings) : producer(settings);
              made.add(producer);
              return producer;
            });
    try (sink) {
      sink.fence();
      sink.handleBatch(events(topic, "event", 0, 3), marks);
    }

    assertThat(made).hasSize(2);
    assertThat(marks.processed).hasSize(3);
    // The new producer's registration aborted the first one's transaction: no copy twice.
    assertThat(readCommitted(context.bootstrapServers(), topic))
        .containsExactly("event-0", "event-1", "event-2");
  }

  @Test
  void shouldCloseWithinItsBoundWhenKafkaStopsAnsweringWithATransactionOpen(StackContext context)
      throws Exception {
    String topic = topic(context, "unanswered");
    KafkaBroker.ProxiedListener listener = context.stack().kafka().proxiedListener().orElseThrow();
    try (TcpProxy kafka = listener.startProxy("relay-kafka")) {
      KafkaBatchSink sink =
          sink(
              producer(
                  ProducerSettings.from(Map.of(), listener.bootstrapServers(), context.slot())));
      sink.fence();
      // A full batch: sent into the open transaction, acknowledged, not committed.
      sink.handleBatch(events(topic, "open", 0, 10), new RecordingCommitter());
      kafka.freeze();

      long closing = System.nanoTime();
      sink.close();
      Duration closed = Duration.ofNanos(System.nanoTime() - closing);

      // Unbounded, the producer's close waits for an abort the broker never answers.
      assertThat(closed).isLessThan(KafkaBatchSink.CLOSE_WAIT.plusSeconds(5));
    }
    assertThat(readCommitted(context.bootstrapServers(), topic)).isEmpty();
  }

  /** A topic of one partition, so the order of what is visible is the order it was written. */
  private static String topic(StackContext context, String name) {
    String topic = context.topic(name);
    context.stack().kafka().createTopic(topic, 1);
    return topic;
  }

  /** The relay's producer settings: every sink of the test shares the slot's transactional.id. */
  private static Map<String, Object> settings(StackContext context) {
    return ProducerSettings.from(Map.of(), context.bootstrapServers(), context.slot());
  }

  private static KafkaProducer<byte[], byte[]> unusableAtCommit(Map<String, Object> settings) {
    return new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer()) {
      @Override
      public void commitTransaction() {
        flush();
        throw new InvalidTxnStateException(
            "The producer attempted a transactional operation in an invalid state.");
      }
    };
  }

  private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> settings) {
    return new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaBatchSink sink(KafkaProducer<byte[], byte[]> producer) {
    return sink(() -> producer);
  }

  private static KafkaBatchSink sink(Supplier<Producer<byte[], byte[]>> producers) {
    RelayStatus status = new RelayStatus(Clock.systemUTC());
    return new KafkaBatchSink(
        producers,
        new OutboxRecordConverter("__debezium-heartbeat.herald", "herald.herald_relay.heartbeat"),
        RETRY,
        PIPELINING,
        new RelayMetrics(new SimpleMeterRegistry(), status),
        status);
  }

  private static List<RecordChangeEvent<SourceRecord>> events(
      String topic, String who, int from, int count) {
    return IntStream.range(from, from + count)
        .<RecordChangeEvent<SourceRecord>>mapToObj(
            i -> {
              SourceRecord record =
                  new SourceRecord(
                      Map.of("server", "herald"),
                      Map.of("lsn", 100L + i),
                      topic,
                      null,
                      Schema.STRING_SCHEMA,
                      "t1/a/d",
                      Schema.OPTIONAL_STRING_SCHEMA,
                      who + "-" + i,
                      1L,
                      new ConnectHeaders());
              return () -> record;
            })
        .toList();
  }

  private static List<String> readCommitted(String bootstrap, String topic) {
    TopicPartition partition = new TopicPartition(topic, 0);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      while (consumer.position(partition) < end) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(new String(record.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return values;
  }
}
