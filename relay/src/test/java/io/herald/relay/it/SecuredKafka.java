package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The relay against one of the test broker's secured listeners, configured once in {@code
 * debezium.sink.kafka.producer.*}: the sink, the relay's slot identity record and Debezium's own
 * offset store must all reach the cluster, so events arrive, offsets are stored, and a restarted
 * relay resumes from them.
 */
final class SecuredKafka {

  private static final int ROWS_PER_RUN = 200;

  private SecuredKafka() {}

  /**
   * Relays a batch, stops the relay (SIGTERM), checks Debezium's offsets are in the offsets topic,
   * then relays another batch after a restart; every event arrives, and the restart does not start
   * over.
   */
  static void assertRelaysAcrossARestart(
      StackContext context, String name, Map<String, String> secured) throws Exception {
    RelayFixture fixture = new RelayFixture(context, name);
    OutboxRows writer = fixture.writerOutbox(5);
    List<UUID> ids = new ArrayList<>();
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      try (RelayFixture.Relay relay = fixture.start(secured)) {
        ids.addAll(writer.insert(ROWS_PER_RUN, 10));
        events.awaitIds(ids, Duration.ofMinutes(2));
        assertThat(relay.process().terminate()).as("exit code after SIGTERM").isIn(0, 143);
      }
      assertThat(engineOffsetRecords(context, fixture.offsetsTopic))
          .as("Debezium's offset records in " + fixture.offsetsTopic)
          .isNotEmpty();

      try (RelayFixture.Relay relay = fixture.start(secured)) {
        ids.addAll(writer.insert(ROWS_PER_RUN, 10));
        events.awaitIds(ids, Duration.ofMinutes(2)).drain(Duration.ofSeconds(1));
      }

      System.out.printf(
          "%s: %d events across a restart, %d duplicates%n", name, ids.size(), events.duplicates());
      events.assertIdsExactly(ids);
      assertThat(events.duplicates())
          .as("events re-sent after the restart")
          .isLessThan(ROWS_PER_RUN);
    }
  }

  /** The keys of the offsets topic's records written by Debezium (not the relay's identity). */
  private static List<String> engineOffsetRecords(StackContext context, String topic) {
    Map<String, Object> settings =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers(),
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> keys = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings)) {
      TopicPartition partition = new TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(partition) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          // Debezium's offset keys are JSON arrays: ["<engine name>",{"server":"<prefix>"}].
          if (record.key() != null && record.key().startsWith("[\"herald-relay\"")) {
            keys.add(record.key());
          }
        }
      }
    }
    return keys;
  }
}
