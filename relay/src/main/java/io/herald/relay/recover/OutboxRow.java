package io.herald.relay.recover;

import java.time.Instant;
import java.util.UUID;

/** One retained outbox row, the columns the relay's router reads plus {@code occurred_at}. */
record OutboxRow(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String tenant,
    String payload,
    String traceParent,
    String traceState,
    Instant occurredAt) {}
