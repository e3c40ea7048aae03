package io.herald.devstack;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.devstack.KafkaBroker.ProxiedListener;
import io.herald.devstack.proxy.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class KafkaBrokerIT {

  @Test
  void shouldConsumeWhatAnIdempotentAcksAllProducerSent(StackContext stack) throws Exception {
    String topic = stack.topic("roundtrip");
    stack.stack().kafka().createTopic(topic, 3);

    try (KafkaProducer<String, String> producer = producer(stack, Duration.ofSeconds(30))) {
      RecordMetadata sent =
          producer
              .send(new ProducerRecord<>(topic, "t1/a-1/dest-a", "hello"))
              .get(30, TimeUnit.SECONDS);
      assertEquals(topic, sent.topic());
    }

    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(stack, stack.groupId("roundtrip"))) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                return !received.isEmpty();
              });
    }
    assertEquals(1, received.size());
    assertEquals("t1/a-1/dest-a", received.get(0).key());
    assertEquals("hello", received.get(0).value());
  }

  /**
   * The relay's next transaction waits on this retry while the previous commit's markers are still
   * being written (EmbeddedKafkaBroker's settings). A misspelt key would only be warned about, and
   * the broker would keep Kafka's 20 ms.
   */
  @Test
  void shouldRetryATransactionsPartitionAddAfterTheDevStacksBackoff(StackContext stack)
      throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
      Node broker = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next();
      ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker.idString());
      Config config =
          admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
      ConfigEntry backoff = config.get("add.partitions.to.txn.retry.backoff.ms");
      assertNotNull(backoff, "the broker does not report the setting");
      assertEquals(String.valueOf(KafkaBroker.PARTITION_ADD_RETRY.toMillis()), backoff.value());
      assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, backoff.source());
    }
  }

  @Test
  void shouldNotCreateATopicWhenProducingOrSubscribingToIt(StackContext stack) throws Exception {
    String missing = stack.topic("missing");

    try (KafkaProducer<String, String> producer = producer(stack, Duration.ofSeconds(3))) {
      ExecutionException failure =
          assertThrows(
              ExecutionException.class,
              () ->
                  producer.send(new ProducerRecord<>(missing, "k", "v")).get(10, TimeUnit.SECONDS));
      assertInstanceOf(TimeoutException.class, failure.getCause());
    }
    try (KafkaConsumer<String, String> consumer = consumer(stack, stack.groupId("missing"))) {
      consumer.subscribe(List.of(missing));
      // The client asks for auto-creation (allow.auto.create.topics defaults to true); the
      // broker must refuse. Polling is the metadata request that would create it.
      consumer.poll(Duration.ofSeconds(3));
    }

    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      assertFalse(topics.contains(missing), "topic was auto-created: " + topics);
    }
  }

  @Test
  void shouldKeepEveryConnectionBehindTheProxyWhenBootstrappingThroughTheProxiedListener(
      StackContext stack) throws Exception {
    ProxiedListener listener = stack.stack().kafka().proxiedListener().orElseThrow();
    String topic = stack.topic("proxied");
    stack.stack().kafka().createTopic(topic, 1);
    try (TcpProxy proxy = listener.startProxy("kafka")) {
      Map<String, Object> admin =
          Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, listener.bootstrapServers());
      try (Admin client = Admin.create(admin)) {
        for (Node node : client.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
          assertEquals(listener.advertisedPort(), node.port(), "metadata names " + node);
        }
      }
      long before = proxy.counters().bytesToTarget();
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  listener.bootstrapServers(),
                  ProducerConfig.ACKS_CONFIG,
                  "all"),
              new StringSerializer(),
              new StringSerializer())) {
        producer.send(new ProducerRecord<>(topic, "k", "via proxy")).get(30, TimeUnit.SECONDS);
      }
      assertTrue(proxy.counters().bytesToTarget() > before, "nothing went through the proxy");
      proxy.freeze();
      // Frozen: a client behind it has no other way to the broker.
      KafkaProducer<String, String> frozen =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  listener.bootstrapServers(),
                  ProducerConfig.MAX_BLOCK_MS_CONFIG,
                  2_000,
                  // Its sender thread waits out an unanswered request even on close(ZERO).
                  ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                  2_000,
                  ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                  3_000),
              new StringSerializer(),
              new StringSerializer());
      try {
        ExecutionException failure =
            assertThrows(
                ExecutionException.class,
                () -> frozen.send(new ProducerRecord<>(topic, "k", "v")).get(10, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, failure.getCause());
      } finally {
        // Nothing to flush: the record never left; do not wait on the frozen link.
        frozen.close(Duration.ZERO);
      }
    }
  }

  static KafkaProducer<String, String> producer(StackContext stack, Duration maxBlock) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            (int) maxBlock.toMillis()),
        new StringSerializer(),
        new StringSerializer());
  }

  static KafkaConsumer<String, String> consumer(StackContext stack, String groupId) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            groupId,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
