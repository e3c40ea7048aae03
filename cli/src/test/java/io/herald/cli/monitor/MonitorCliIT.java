package io.herald.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.Json;
import io.herald.consumer.HeraldConsumer;
import io.herald.consumer.TestKit;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.devstack.FreePort;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald monitor --once} as a separate OS process against a running consumer (the consumer's
 * test kit, operator token {@code op-token}) with one delivery PUBLISHED and one parked in
 * NEEDS_RECONCILIATION by an accept-then-stall destination, one record planted on the dead-letter
 * topic and one on the heartbeat topic; the writer and the relay are configured on ports where
 * nothing listens.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MonitorCliIT {

  private static final String DESTINATION = "monitor-dest";

  /** The relay's topic prefix, hence its heartbeat topic, unique to this run. */
  private static final String TOPIC_PREFIX = "monitor" + System.nanoTime();

  private TestKit kit;
  private String dlq;
  private StackContext stack;
  private String group;
  private URI consumerUri;
  private Path configDir;

  @BeforeAll
  void startConsumerWithOnePublishedAndOneParked(StackContext stack, @TempDir Path dir)
      throws Exception {
    this.stack = stack;
    kit = new TestKit(stack, "cli-monitor", 2);
    dlq = stack.topic("cli-monitor-dlq");
    TestKit.Destination destination = kit.destination(DESTINATION, Behaviour.bare());
    destination.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)), 1);
    group = stack.groupId("monitor");
    Map<String, String> properties = kit.properties(group, destination);
    HeraldConsumer consumer = kit.start(properties);
    consumerUri = consumer.opsUri();
    DeliveryViews views = new DeliveryViews(stack.dataSource());
    PublicationKey parked = new PublicationKey("t1", "a-mon-1", "r-1", DESTINATION);
    kit.sendAsync(TestKit.request(parked, "Parked"));
    kit.flush();
    awaitState(views, parked, DeliveryState.NEEDS_RECONCILIATION);
    PublicationKey published = new PublicationKey("t1", "a-mon-2", "r-1", DESTINATION);
    kit.sendAsync(TestKit.request(published, "Published"));
    kit.flush();
    awaitState(views, published, DeliveryState.PUBLISHED);
    configDir = configDir(dir, properties);
    stack.stack().kafka().createTopic(heartbeats(), 1);
    // One dead letter and one heartbeat, 40 s and 20 s old: the monitor reads the last record.
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      long now = System.currentTimeMillis();
      producer.send(new ProducerRecord<>(dlq, null, now - 40_000, null, new byte[] {1})).get();
      producer
          .send(new ProducerRecord<>(heartbeats(), null, now - 20_000, null, new byte[] {2}))
          .get();
    }
    // The consumer refreshes its per-state gauge every reconcile interval and commits its offsets
    // after each batch: wait for both, so that the figures below are settled.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> scrape(),
            s ->
                s.contains(
                        "herald_consumer_deliveries{process=\"consumer\",state=\"PUBLISHED\"} 1.0")
                    && s.contains(
                        "herald_consumer_deliveries{process=\"consumer\",state=\"NEEDS_RECONCILIATION\"} 1.0"));
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                      .listConsumerGroupOffsets(group)
                      .partitionsToOffsetAndMetadata()
                      .get()
                      .values()
                      .stream()
                      .mapToLong(OffsetAndMetadata::offset)
                      .sum(),
              committed -> committed == 2);
    }
  }

  @AfterAll
  void stopConsumer() {
    if (kit != null) {
      kit.close();
    }
  }

  @Test
  void shouldShowDeliveriesByStateTheParkedOnesAgeConsumerLagAndWhatIsUnreachable()
      throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of(),
            "--config-dir",
            configDir.toString(),
            "monitor",
            "--once",
            "--interval",
            "500ms");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    String consumer = "http://127.0.0.1:" + consumerUri.getPort();
    assertThat(result.out())
        .startsWith("herald monitor  ")
        .containsPattern(
            "(?m)^deliveries +PENDING 0 .*NEEDS_RECONCILIATION 1  PUBLISHED 1  FAILED 0")
        .containsPattern("(?m)^needs reconciliation +1, oldest [0-9hms]+$")
        .containsPattern("(?m)^uncertain +0$")
        .containsPattern("(?m)^rates in +requested unreachable \\(writer\\), events [0-9.]+/s ")
        .containsPattern("(?m)^rates out +published [0-9.]+/s$")
        .containsPattern("(?m)^dlq arrivals +0 since start, 1 on the topic, last [0-9hms]+ ago$")
        .containsPattern("(?m)^relay +unreachable$")
        .containsPattern("(?m)^slot lag +unreachable$")
        .containsPattern("(?m)^last heartbeat +[0-9hms]+ ago \\(topic " + heartbeats() + "\\)$")
        .containsPattern(
            "(?m)^consumer lag +0 records \\(group "
                + group
                + " on "
                + stack.topic("cli-monitor")
                + "\\)$")
        .containsPattern("(?m)^  writer +http://127.0.0.1:[0-9]+  unreachable: connection refused$")
        .containsPattern("(?m)^  relay +http://127.0.0.1:[0-9]+  unreachable: connection refused$")
        .containsPattern("(?m)^  consumer +" + consumer + "  ok$")
        .containsPattern("(?m)^  operator-api +" + consumer + "/v1/deliveries  ok$")
        .containsPattern("(?m)^  kafka +" + stack.bootstrapServers() + "  ok$")
        .doesNotContain("\u001b");
  }

  @Test
  void shouldPrintOneJsonObjectWithOnceAndJson() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of(),
            "--config-dir",
            configDir.toString(),
            "monitor",
            "--once",
            "--json",
            "--interval",
            "500ms");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode snapshot = Json.mapper().readTree(result.out());
    assertThat(snapshot.path("deliveries").path("PUBLISHED").asLong()).isEqualTo(1);
    assertThat(snapshot.path("deliveries").path("NEEDS_RECONCILIATION").asLong()).isEqualTo(1);
    assertThat(snapshot.path("needsReconciliation").path("count").asLong()).isEqualTo(1);
    assertThat(snapshot.path("needsReconciliation").path("oldestAgeSeconds").asDouble())
        .isPositive();
    assertThat(snapshot.path("uncertain").path("oldestAgeSeconds").isNull()).isTrue();
    assertThat(snapshot.path("consumerLag").path("group").asText()).isEqualTo(group);
    assertThat(snapshot.path("consumerLag").path("records").isIntegralNumber()).isTrue();
    assertThat(snapshot.path("consumerLag").path("records").asLong()).isZero();
    assertThat(snapshot.path("dlq").path("onTopic").asLong()).isEqualTo(1);
    assertThat(snapshot.path("dlq").path("sinceStart").asLong()).isZero();
    assertThat(snapshot.path("dlq").path("lastArrivalAgeSeconds").asDouble()).isGreaterThan(39);
    assertThat(snapshot.path("heartbeat").path("source").asText())
        .isEqualTo("topic " + heartbeats());
    assertThat(snapshot.path("heartbeat").path("ageSeconds").asDouble()).isGreaterThan(19);
    assertThat(snapshot.path("relay").path("state").isNull()).isTrue();
    assertThat(snapshot.path("rates").path("publicationsRequestedPerSecond").isNull()).isTrue();
    assertThat(snapshot.path("rates").path("deliveriesPublishedPerSecond").isNumber()).isTrue();
    assertThat(snapshot.path("anyReached").asBoolean()).isTrue();
    Map<String, String> status = new HashMap<>();
    snapshot
        .path("sources")
        .forEach(s -> status.put(s.path("name").asText(), s.path("status").asText()));
    assertThat(status.get("writer")).startsWith("unreachable");
    assertThat(status.get("relay")).startsWith("unreachable");
    assertThat(status.get("consumer")).isEqualTo("ok");
    assertThat(status.get("operator-api")).isEqualTo("ok");
    assertThat(status.get("kafka")).isEqualTo("ok");
  }

  @Test
  void shouldCountEveryRecordAsLagForAGroupThatCommittedNothing() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of("HERALD_CONSUMER_KAFKA_GROUP_ID", group + "-idle"),
            "--config-dir",
            configDir.toString(),
            "monitor",
            "--once",
            "--json",
            "--interval",
            "100ms");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(Json.mapper().readTree(result.out()).path("consumerLag").path("records").asLong())
        .isEqualTo(2);
  }

  @Test
  void shouldExitThreeWhenNothingAtAllCanBeReached() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of(
                "HERALD_CONSUMER_OPS_PORT",
                Integer.toString(freePort()),
                "HERALD_CONSUMER_KAFKA_BOOTSTRAP_SERVERS",
                "127.0.0.1:" + freePort()),
            "--config-dir",
            configDir.toString(),
            "monitor",
            "--kafka-timeout",
            "2s",
            "--once",
            "--interval",
            "100ms");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
    assertThat(result.out())
        .containsPattern("(?m)^deliveries +unreachable$")
        .containsPattern("(?m)^consumer lag +unreachable$")
        .containsPattern("(?m)^  kafka +127.0.0.1:[0-9]+  unreachable: no answer within 2s$");
  }

  private static void awaitState(DeliveryViews views, PublicationKey key, DeliveryState state) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> views.find(key), v -> v.isPresent() && v.get().state() == state)
        .map(DeliveryView::id)
        .orElseThrow();
  }

  private String scrape() throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(consumerUri.resolve("/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * The kit's consumer.properties with the consumer's real ops port, and the shipped writer and
   * relay files with their ops ports where nothing listens.
   */
  private Path configDir(Path dir, Map<String, String> consumer) throws IOException {
    Path config = Files.createDirectories(dir.resolve("config"));
    Properties properties = new Properties();
    properties.putAll(consumer);
    properties.setProperty("consumer.ops.host", "127.0.0.1");
    properties.setProperty("consumer.ops.port", Integer.toString(consumerUri.getPort()));
    store(properties, config.resolve("consumer.properties"));
    for (String process : new String[] {"writer", "relay"}) {
      Properties shipped = new Properties();
      shipped.putAll(ShippedConfig.of(process).properties());
      shipped.setProperty(process + ".ops.port", Integer.toString(freePort()));
      if (process.equals("relay")) {
        shipped.setProperty("debezium.source.topic.prefix", TOPIC_PREFIX);
      }
      store(shipped, config.resolve(process + ".properties"));
    }
    return config;
  }

  /** Debezium's heartbeat topic for {@link #TOPIC_PREFIX}, as the relay's config names it. */
  private static String heartbeats() {
    return "__debezium-heartbeat." + TOPIC_PREFIX;
  }

  private static void store(Properties properties, Path file) throws IOException {
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "MonitorCliIT");
    }
  }

  private static int freePort() throws IOException {
    return FreePort.find();
  }
}
