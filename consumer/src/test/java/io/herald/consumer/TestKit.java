package io.herald.consumer;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.id.UuidV7;
import io.herald.common.json.Json;
import io.herald.config.ConfigSource;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.consumer.delivery.StatusEvents;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the consumer's integration tests share: the schema, a producer that writes {@code
 * PublicationRequested} records exactly as the relay does, simulators, consumer configs with short
 * timings, and queries on the delivery table and the status events. Public for the consumer
 * benchmark in {@code bench}, which runs on this kit (the consumer's test-jar).
 */
public final class TestKit implements AutoCloseable {

  /** One destination of a test: its name, simulator and declared capabilities. */
  public record Destination(
      String name, DestinationSimulator simulator, boolean idempotent, boolean lookup) {}

  final StackContext stack;
  final String topic;
  final String dlqTopic;
  final DeliveryViews deliveries;
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<AutoCloseable> resources = new ArrayList<>();

  public TestKit(StackContext stack, String name, int partitions) {
    this.stack = stack;
    this.topic = stack.topic(name);
    this.dlqTopic = stack.topic(name + "-dlq");
    stack.stack().kafka().createTopic(topic, partitions);
    stack.stack().kafka().createTopic(dlqTopic, 1);
    SchemaMigrator.migrate(
        stack.dataSource(),
        HeraldSchema.CONSUMER,
        new CaptureSettings(stack.publication(), stack.slot()));
    deliveries = new DeliveryViews(stack.dataSource());
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
  }

  DestinationSimulator simulator(Behaviour behaviour) {
    DestinationSimulator simulator = DestinationSimulator.start(behaviour);
    resources.add(simulator);
    return simulator;
  }

  public Destination destination(String name, Behaviour behaviour) {
    return new Destination(
        name, simulator(behaviour), behaviour.honoursIdempotencyKey(), behaviour.supportsLookup());
  }

  /** Consumer properties with timings short enough for tests (lease 3s, read timeout 1s). */
  public Map<String, String> properties(String group, Destination... destinations) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("consumer.db.jdbc-url", stack.jdbcUrl());
    p.put("consumer.db.user", stack.user());
    p.put("consumer.db.password", stack.password() == null ? "" : stack.password());
    p.put("consumer.db.pool-size", "6");
    p.put("consumer.capture.publication", stack.publication());
    p.put("consumer.capture.slot", stack.slot());
    p.put("consumer.kafka.bootstrap-servers", stack.bootstrapServers());
    p.put("consumer.kafka.group-id", group);
    p.put("consumer.topics.publication-events", topic);
    p.put("consumer.topics.dlq", dlqTopic);
    p.put("consumer.ops.port", "0");
    p.put("consumer.ops.operator-token", "op-token");
    p.put("consumer.dispatch.lease", "3s");
    p.put("consumer.dispatch.poll-interval", "50ms");
    p.put("consumer.dispatch.backoff-base", "100ms");
    p.put("consumer.dispatch.backoff-max", "400ms");
    p.put("consumer.dispatch.max-attempts", "5");
    p.put("consumer.dispatch.shutdown-grace", "5s");
    p.put("consumer.reconcile.interval", "200ms");
    p.put("consumer.reconcile.grace-period", "300ms");
    p.put("consumer.reconcile.lookup-retry", "200ms");
    p.put("kafka.consumer.session.timeout.ms", "6000");
    p.put("kafka.consumer.heartbeat.interval.ms", "1000");
    p.put("kafka.consumer.max.poll.records", "100");
    for (Destination d : destinations) {
      String prefix = "consumer.destinations." + d.name() + ".";
      p.put(prefix + "base-url", d.simulator().baseUri().toString());
      // The simulator's defaults: keys in Idempotency-Key, never forgotten within a test's day.
      if (d.idempotent()) {
        p.put(prefix + "idempotency-header", "Idempotency-Key");
        p.put(prefix + "dedup-window", "1d");
      }
      if (d.lookup()) {
        p.put(prefix + "lookup-path", "/articles?externalReference={ref}");
      }
      p.put(prefix + "connect-timeout", "500ms");
      p.put(prefix + "read-timeout", "1s");
      p.put(prefix + "concurrency", "4");
    }
    return p;
  }

  public HeraldConsumer start(Map<String, String> properties) {
    HeraldConsumer consumer =
        HeraldConsumer.start(ConsumerConfig.from(ConfigSource.of(properties, Map.of())));
    resources.add(consumer);
    return consumer;
  }

  /**
   * The consumer's schema migrated in the stack's database, and the delivery store over it, for
   * tests of the statements themselves.
   */
  public static Deliveries migratedDeliveries(StackContext stack) {
    SchemaMigrator.migrate(
        stack.dataSource(),
        HeraldSchema.CONSUMER,
        new CaptureSettings(stack.publication(), stack.slot()));
    return new Deliveries(
        stack.dataSource(),
        new StatusEvents(Clock.systemUTC(), UuidV7.system(), Duration.ofDays(1)));
  }

  public static PublicationRequested request(PublicationKey key, String title) {
    ObjectNode content = Json.mapper().createObjectNode();
    content.put("title", title);
    content.put("body", "Text of " + key.articleId() + " " + key.revisionId());
    return PublicationRequested.of(UUID.randomUUID(), key, content, Instant.now());
  }

  /** Produces {@code request} as the relay would, with a new event id; returns the id. */
  UUID send(PublicationRequested request) {
    UUID id = UuidV7.system().get();
    send(request, id);
    return id;
  }

  void send(PublicationRequested request, UUID eventId) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(EventHeaders.ID, eventId.toString());
    headers.put(EventHeaders.EVENT_TYPE, EventTypes.PUBLICATION_REQUESTED);
    headers.put(EventHeaders.TENANT, request.key().tenant());
    headers.put(
        EventHeaders.TRACEPARENT, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    sendRaw(
        request.key().aggregateId(),
        request.toJson().toString().getBytes(StandardCharsets.UTF_8),
        headers);
  }

  /** Produces without waiting for the acknowledgement (benchmarks); {@link #flush()} waits. */
  public void sendAsync(PublicationRequested request) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic,
            request.key().aggregateId().getBytes(StandardCharsets.UTF_8),
            request.toJson().toString().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(EventHeaders.ID, UuidV7.system().get().toString().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(
            EventHeaders.EVENT_TYPE,
            EventTypes.PUBLICATION_REQUESTED.getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(EventHeaders.TENANT, request.key().tenant().getBytes(StandardCharsets.UTF_8));
    producer.send(record);
  }

  public void flush() {
    producer.flush();
  }

  void sendRaw(String key, byte[] value, Map<String, String> headers) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value);
    headers.forEach((name, v) -> record.headers().add(name, v.getBytes(StandardCharsets.UTF_8)));
    try {
      producer.send(record).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot produce to " + topic, e);
    }
  }

  Optional<DeliveryView> find(PublicationKey key) {
    try {
      return deliveries.find(key);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The HTTP status of the consumer's {@code /health}: 200 when every check is up, else 503. */
  static int health(HeraldConsumer consumer) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(consumer.opsUri() + "/health"))
                  .timeout(Duration.ofSeconds(15))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach " + consumer.opsUri(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  DeliveryView awaitState(PublicationKey key, DeliveryState state) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> find(key), v -> v.isPresent() && v.get().state() == state)
        .orElseThrow();
  }

  /** The status events of a delivery, as {@code eventType:state}, in the order written. */
  List<String> events(UUID deliveryId) {
    return query(
        "SELECT event_type || ':' || (payload->>'state') FROM consumer.outbox"
            + " WHERE payload->>'deliveryId' = ? ORDER BY occurred_at, id",
        deliveryId.toString());
  }

  public List<String> query(String sql, Object... args) {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setObject(i + 1, args[i]);
      }
      List<String> rows = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.add(result.getString(1));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("Query failed: " + sql, e);
    }
  }

  int update(String sql, Object... args) {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setObject(i + 1, args[i]);
      }
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Update failed: " + sql, e);
    }
  }

  @Override
  public void close() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        throw new IllegalStateException("Closing " + resources.get(i) + " failed", e);
      }
    }
    producer.close();
  }
}
