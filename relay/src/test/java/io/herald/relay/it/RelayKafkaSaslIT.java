package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The relay against a Kafka listener that requires authentication (SASL/PLAIN), configured once in
 * {@code debezium.sink.kafka.producer.*}: the sink, the relay's slot identity record and Debezium's
 * own offset store all reach the cluster, so events arrive and a restarted relay resumes from its
 * stored offsets.
 */
@HeraldIntegrationTest
class RelayKafkaSaslIT {

  @Test
  void shouldRelayAndStoreItsOffsetsThroughAnAuthenticatedListener(StackContext context)
      throws Exception {
    Optional<String> sasl = context.stack().kafka().saslPlainBootstrapServers();
    assumeTrue(sasl.isPresent(), "the broker has no SASL/PLAIN listener");
    RelayFixture fixture = new RelayFixture(context, "sasl");
    OutboxRows writer = fixture.writerOutbox(5);
    Map<String, String> secured =
        Map.of(
            "relay.kafka.bootstrap-servers",
            sasl.get(),
            "debezium.sink.kafka.producer.security.protocol",
            "SASL_PLAINTEXT",
            "debezium.sink.kafka.producer.sasl.mechanism",
            "PLAIN",
            "debezium.sink.kafka.producer.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + KafkaBroker.SASL_USER
                + "\" password=\""
                + KafkaBroker.SASL_PASSWORD
                + "\";");
    List<UUID> ids = new ArrayList<>();
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      try (RelayFixture.Relay relay = fixture.start(secured)) {
        ids.addAll(writer.insert(200, 10));
        events.awaitIds(ids, Duration.ofMinutes(2));
        assertThat(relay.process().terminate()).as("exit code after SIGTERM").isIn(0, 143);
      }
      assertThat(engineOffsetRecords(context, fixture.offsetsTopic))
          .as("Debezium's offset records in " + fixture.offsetsTopic)
          .isNotEmpty();

      try (RelayFixture.Relay relay = fixture.start(secured)) {
        ids.addAll(writer.insert(200, 10));
        events.awaitIds(ids, Duration.ofMinutes(2)).drain(Duration.ofSeconds(1));
      }

      System.out.printf(
          "RelayKafkaSaslIT: %d events through SASL/PLAIN across a restart, %d duplicates%n",
          ids.size(), events.duplicates());
      events.assertIdsExactly(ids);
      assertThat(events.duplicates()).as("events re-sent after the restart").isLessThan(200);
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
