package io.herald.consumer.delivery;

import java.time.Instant;
import java.util.UUID;

/** A delivery row as operators and tests read it. */
public record DeliveryView(
    UUID id,
    long seq,
    UUID jobId,
    UUID messageId,
    String tenant,
    String articleId,
    String revisionId,
    String destination,
    String idempotencyKey,
    String payloadHash,
    DeliveryState state,
    int attempts,
    long claimToken,
    String claimOwner,
    String remoteId,
    String lastError,
    Instant uncertainSince,
    Instant nextAttemptAt,
    Instant updatedAt) {}
