package io.herald.bench.consumer;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.id.UuidV7;
import io.herald.common.json.Json;
import io.herald.config.ConfigSource;
import io.herald.consumer.HeraldConsumer;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the consumer benchmark needs of the consumer's test kit: the schema, its own topics, a
 * producer that writes {@code PublicationRequested} records as the relay does, simulators, consumer
 * properties with the tests' short timings (the figures were measured with them), in-process
 * consumers and queries. Closing it closes what it started, last first.
 */
final class ConsumerBenchKit implements AutoCloseable {

  /** One destination of a run: its name, simulator and declared capabilities. */
  record Destination(
      String name, DestinationSimulator simulator, boolean idempotent, boolean lookup) {}

  private final StackContext stack;
  private final String topic;
  private final String dlqTopic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<AutoCloseable> resources = new ArrayList<>();

  ConsumerBenchKit(StackContext stack, String name, int partitions) {
    this.stack = stack;
    this.topic = stack.topic(name);
    this.dlqTopic = stack.topic(name + "-dlq");
    stack.stack().kafka().createTopic(topic, partitions);
    stack.stack().kafka().createTopic(dlqTopic, 1);
    SchemaMigrator.migrate(
        stack.dataSource(),
        HeraldSchema.CONSUMER,
        new CaptureSettings(stack.publication(), stack.slot()));
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
  }

  Destination destination(String name, Behaviour behaviour) {
    DestinationSimulator simulator = DestinationSimulator.start(behaviour);
    resources.add(simulator);
    return new Destination(
        name, simulator, behaviour.honoursIdempotencyKey(), behaviour.supportsLookup());
  }

  /** Consumer properties with the integration tests' timings (lease 3s, read timeout 1s). */
  Map<String, String> properties(String group, Destination... destinations) {
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
      p.put(prefix + "idempotency-key-supported", Boolean.toString(d.idempotent()));
      p.put(prefix + "lookup-supported", Boolean.toString(d.lookup()));
      p.put(prefix + "connect-timeout", "500ms");
      p.put(prefix + "read-timeout", "1s");
      p.put(prefix + "concurrency", "4");
    }
    return p;
  }

  HeraldConsumer start(Map<String, String> properties) {
    HeraldConsumer consumer =
        HeraldConsumer.start(ConsumerConfig.from(ConfigSource.of(properties, Map.of())));
    resources.add(consumer);
    return consumer;
  }

  static PublicationRequested request(PublicationKey key, String title) {
    ObjectNode content = Json.mapper().createObjectNode();
    content.put("title", title);
    content.put("body", "Text of " + key.articleId() + " " + key.revisionId());
    return PublicationRequested.of(UUID.randomUUID(), key, content, Instant.now());
  }

  /** Produces without waiting for the acknowledgement; {@link #flush()} waits for all. */
  void sendAsync(PublicationRequested request) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic,
            request.key().aggregateId().getBytes(StandardCharsets.UTF_8),
            request.toJson().toString().getBytes(StandardCharsets.UTF_8));
    record.headers().add(EventHeaders.ID, utf8(UuidV7.system().get().toString()));
    record.headers().add(EventHeaders.EVENT_TYPE, utf8(EventTypes.PUBLICATION_REQUESTED));
    record.headers().add(EventHeaders.TENANT, utf8(request.key().tenant()));
    producer.send(record);
  }

  void flush() {
    producer.flush();
  }

  /** The first column of every row {@code sql} returns, as text. */
  List<String> query(String sql, Object... args) {
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

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
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
