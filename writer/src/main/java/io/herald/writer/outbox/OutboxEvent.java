package io.herald.writer.outbox;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One row of {@code writer.outbox}: what the relay's outbox router turns into a Kafka record (key
 * {@code aggregateId}, value {@code payloadJson}, headers {@code id}, {@code eventType}, {@code
 * tenant}, {@code traceparent}, {@code tracestate}).
 *
 * @param traceState {@code null} when absent
 */
public record OutboxEvent(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String tenant,
    String payloadJson,
    String traceParent,
    String traceState,
    Instant occurredAt) {

  public OutboxEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(payloadJson, "payloadJson");
    Objects.requireNonNull(traceParent, "traceParent");
    Objects.requireNonNull(occurredAt, "occurredAt");
  }
}
