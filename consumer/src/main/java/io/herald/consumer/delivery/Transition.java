package io.herald.consumer.delivery;

import java.time.Duration;
import java.util.Objects;

/**
 * The result a claim holder records: the next state, what it learned, and when to try again.
 *
 * @param remoteId the destination's id of the article, only with {@code PUBLISHED}
 * @param reason why (an error, a decision), null for a plain success
 * @param retryIn delay before the delivery is due again ({@code RETRY_WAIT}, or an {@code
 *     UNCERTAIN} lookup that could not be answered)
 */
public record Transition(DeliveryState to, String remoteId, String reason, Duration retryIn) {

  public Transition {
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(retryIn, "retryIn");
    if (to == DeliveryState.DISPATCHING) {
      throw new IllegalArgumentException("DISPATCHING is entered by a claim, not recorded");
    }
    if (to == DeliveryState.PUBLISHED && (remoteId == null || remoteId.isBlank())) {
      throw new IllegalArgumentException("PUBLISHED needs the remote id");
    }
  }

  public static Transition published(String remoteId, String reason) {
    return new Transition(DeliveryState.PUBLISHED, remoteId, reason, Duration.ZERO);
  }

  public static Transition retryWait(String reason, Duration retryIn) {
    return new Transition(DeliveryState.RETRY_WAIT, null, reason, retryIn);
  }

  public static Transition pending(String reason) {
    return new Transition(DeliveryState.PENDING, null, reason, Duration.ZERO);
  }

  public static Transition uncertain(String reason) {
    return new Transition(DeliveryState.UNCERTAIN, null, reason, Duration.ZERO);
  }

  /** Stay uncertain (no event) and look again after {@code retryIn}. */
  public static Transition stillUncertain(String reason, Duration retryIn) {
    return new Transition(DeliveryState.UNCERTAIN, null, reason, retryIn);
  }

  public static Transition needsReconciliation(String reason) {
    return new Transition(DeliveryState.NEEDS_RECONCILIATION, null, reason, Duration.ZERO);
  }

  public static Transition failed(String reason) {
    return new Transition(DeliveryState.FAILED, null, reason, Duration.ZERO);
  }
}
