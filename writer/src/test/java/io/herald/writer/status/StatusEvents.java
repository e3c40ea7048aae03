package io.herald.writer.status;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces status events on a test topic in the exact shape the consumer's outbox reaches Kafka in:
 * key {@code tenant/articleId/destination}, headers {@code id}, {@code eventType}, {@code tenant}
 * (plain UTF-8), value {@code {deliveryId, jobId, tenant, articleId, revisionId, destination,
 * state, remoteId, attempts, reason, occurredAt}}.
 */
final class StatusEvents implements AutoCloseable {

  /** One status event; {@link #send} writes it. */
  record Event(
      UUID id,
      String eventType,
      UUID jobId,
      PublicationKey key,
      String state,
      String remoteId,
      int attempts,
      String reason,
      Instant occurredAt) {

    Event withId(UUID newId) {
      return new Event(newId, eventType, jobId, key, state, remoteId, attempts, reason, occurredAt);
    }

    byte[] value() {
      ObjectNode node = Json.mapper().createObjectNode();
      node.put("deliveryId", UUID.nameUUIDFromBytes(key.idempotencyKey().getBytes()).toString());
      node.put("jobId", jobId.toString());
      node.put("tenant", key.tenant());
      node.put("articleId", key.articleId());
      node.put("revisionId", key.revisionId());
      node.put("destination", key.destination());
      node.put("state", state);
      node.put("remoteId", remoteId);
      node.put("attempts", attempts);
      node.put("reason", reason);
      node.put("occurredAt", occurredAt.toString());
      return node.toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;

  StatusEvents(String bootstrapServers, String topic) {
    this.topic = topic;
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName()));
  }

  static Event event(
      UUID jobId, PublicationKey key, String state, String remoteId, Instant occurredAt) {
    String eventType =
        switch (state) {
          case "PUBLISHED" -> "PublicationPublished";
          case "PENDING", "RETRY_WAIT" -> "PublicationRetrying";
          case "UNCERTAIN" -> "PublicationUncertain";
          case "NEEDS_RECONCILIATION" -> "PublicationNeedsReconciliation";
          case "CONFLICT" -> "PublicationConflict";
          case "UNKNOWN_DESTINATION" -> "PublicationUnknownDestination";
          default -> "PublicationFailed";
        };
    return new Event(
        UUID.randomUUID(), eventType, jobId, key, state, remoteId, 1, null, occurredAt);
  }

  /** Sends {@code event} and waits for the broker's acknowledgement. */
  void send(Event event) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, event.key().aggregateId(), event.value());
    header(record, EventHeaders.ID, event.id().toString());
    header(record, EventHeaders.EVENT_TYPE, event.eventType());
    header(record, EventHeaders.TENANT, event.key().tenant());
    send(record);
  }

  /** Sends a raw record (for invalid ones) and waits for the acknowledgement. */
  void send(ProducerRecord<String, byte[]> record) {
    try {
      producer.send(record).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("sending to " + topic + " failed", e);
    }
  }

  String topic() {
    return topic;
  }

  static void header(ProducerRecord<String, byte[]> record, String name, String value) {
    record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
