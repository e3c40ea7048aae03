package io.herald.consumer.delivery;

import io.herald.common.event.PublicationKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A delivery held under a claim: the holder may call the destination and record one result, which
 * the database accepts only while {@link #claimToken()} is still the row's token (fencing).
 *
 * @param content the article content as JSON text
 * @param attempts the attempt count including this claim's attempt
 * @param uncertainSince when the delivery last became uncertain, null if it never was
 * @param state the state the claim holds the row in ({@code DISPATCHING}, or {@code UNCERTAIN} for
 *     a reconciler's lookup)
 * @param sinceFirstAttempt how long ago, by the database's clock at the claim, the delivery's first
 *     attempt was made (zero for the first): how much of the destination's dedup window is used.
 *     Counted again after a lookup's "not found" or an operator's retry
 */
public record ClaimedDelivery(
    UUID id,
    UUID jobId,
    PublicationKey key,
    String idempotencyKey,
    String content,
    long claimToken,
    int attempts,
    String traceParent,
    String traceState,
    Instant uncertainSince,
    DeliveryState state,
    Duration sinceFirstAttempt) {

  public ClaimedDelivery {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(sinceFirstAttempt, "sinceFirstAttempt");
  }

  /** A claim whose first attempt is this one. */
  public ClaimedDelivery(
      UUID id,
      UUID jobId,
      PublicationKey key,
      String idempotencyKey,
      String content,
      long claimToken,
      int attempts,
      String traceParent,
      String traceState,
      Instant uncertainSince,
      DeliveryState state) {
    this(
        id,
        jobId,
        key,
        idempotencyKey,
        content,
        claimToken,
        attempts,
        traceParent,
        traceState,
        uncertainSince,
        state,
        Duration.ZERO);
  }

  public boolean wasEverUncertain() {
    return uncertainSince != null;
  }

  @Override
  public String toString() {
    return "delivery "
        + id
        + " ("
        + key.aggregateId()
        + " revision "
        + key.revisionId()
        + ", token "
        + claimToken
        + ", attempt "
        + attempts
        + ")";
  }
}
