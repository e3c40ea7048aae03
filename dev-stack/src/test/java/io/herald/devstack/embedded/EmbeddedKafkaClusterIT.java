package io.herald.devstack.embedded;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** A three-node cluster (not the shared stack's broker): one node SIGKILLed, acked records kept. */
class EmbeddedKafkaClusterIT {

  @Test
  void shouldKeepEveryAcknowledgedRecordWhenThePartitionLeaderIsKilled() throws Exception {
    try (EmbeddedKafkaCluster kafka =
        EmbeddedKafkaCluster.start(Path.of("target", "kafka-cluster-it"), 3)) {
      kafka.createTopic("events", 1);
      int leader = kafka.leaders("events").get(0);
      Set<String> acked = new HashSet<>();
      try (KafkaProducer<String, String> producer = producer(kafka.bootstrapServers())) {
        send(producer, "before", acked);
        kafka.node(leader).kill();
        // acks=all, min.insync.replicas=2: the two left take the writes once one leads.
        send(producer, "during", acked);
        await().atMost(Duration.ofMinutes(1)).until(() -> kafka.leaders("events").get(0) > 0);
        assertNotEquals(leader, kafka.leaders("events").get(0));
        kafka.node(leader).start();
        kafka.awaitFullyReplicated(Duration.ofMinutes(2));
        send(producer, "after", acked);
      }

      Set<String> read = new HashSet<>();
      try (KafkaConsumer<String, String> consumer = consumer(kafka.bootstrapServers())) {
        consumer.subscribe(List.of("events"));
        await()
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> {
                  consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                  return read.size() >= acked.size();
                });
      }
      assertEquals(acked, read);
      assertEquals(30, acked.size());
    }
  }

  private static void send(KafkaProducer<String, String> producer, String phase, Set<String> acked)
      throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      sent.add(producer.send(new ProducerRecord<>("events", "k", phase + "-" + i)));
    }
    for (int i = 0; i < sent.size(); i++) {
      sent.get(i).get(2, TimeUnit.MINUTES);
      acked.add(phase + "-" + i);
    }
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            120_000),
        new StringSerializer(),
        new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.GROUP_ID_CONFIG, "cluster-it",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
