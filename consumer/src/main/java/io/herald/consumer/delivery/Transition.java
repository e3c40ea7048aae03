package io.herald.consumer.delivery;

import java.time.Duration;
import java.util.Objects;

/**
 * A state change to record: the next state, what was learned, when the delivery is due again, and
 * whether the change is announced by a status event. Decided by the delivery policy ({@code
 * io.herald.consumer.policy.DeliveryPolicy}); recorded by {@link Deliveries}.
 *
 * @param remoteId the destination's id of the article, only with {@code PUBLISHED}
 * @param reason why (an error, a decision), null for a plain success
 * @param retryIn delay before the delivery is due again ({@code RETRY_WAIT}, or an {@code
 *     UNCERTAIN} lookup that could not be answered)
 * @param announced whether a status event of {@link #eventType()} is written with the change; only
 *     a lookup that got no answer stays {@code UNCERTAIN} silently
 * @param resetsAttempts whether the attempt count starts over (an operator's retry)
 * @param restartsWindow whether the change proves that no earlier attempt created the article (a
 *     lookup's "not found", an operator's retry): the delivery's first attempt is forgotten, so the
 *     destination's dedup window is counted again from the next attempt
 */
public record Transition(
    DeliveryState to,
    String remoteId,
    String reason,
    Duration retryIn,
    boolean announced,
    boolean resetsAttempts,
    boolean restartsWindow) {

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

  public Transition(
      DeliveryState to,
      String remoteId,
      String reason,
      Duration retryIn,
      boolean announced,
      boolean resetsAttempts) {
    this(to, remoteId, reason, retryIn, announced, resetsAttempts, false);
  }

  private static Transition to(DeliveryState to, String reason) {
    return new Transition(to, null, reason, Duration.ZERO, true, false);
  }

  public static Transition published(String remoteId, String reason) {
    return new Transition(DeliveryState.PUBLISHED, remoteId, reason, Duration.ZERO, true, false);
  }

  public static Transition retryWait(String reason, Duration retryIn) {
    return new Transition(DeliveryState.RETRY_WAIT, null, reason, retryIn, true, false);
  }

  public static Transition pending(String reason) {
    return to(DeliveryState.PENDING, reason);
  }

  public static Transition uncertain(String reason) {
    return to(DeliveryState.UNCERTAIN, reason);
  }

  /** Stay uncertain (no event) and look again after {@code retryIn}. */
  public static Transition stillUncertain(String reason, Duration retryIn) {
    return new Transition(DeliveryState.UNCERTAIN, null, reason, retryIn, false, false);
  }

  public static Transition needsReconciliation(String reason) {
    return to(DeliveryState.NEEDS_RECONCILIATION, reason);
  }

  /** Received for a destination the consumer has no configuration for (announced). */
  public static Transition unknownDestination(String reason) {
    return to(DeliveryState.UNKNOWN_DESTINATION, reason);
  }

  /** A new delivery that waits to be claimed; intake announces nothing for it. */
  public static Transition received() {
    return new Transition(DeliveryState.PENDING, null, null, Duration.ZERO, false, false);
  }

  public static Transition failed(String reason) {
    return to(DeliveryState.FAILED, reason);
  }

  public static Transition abandoned(String reason) {
    return to(DeliveryState.ABANDONED, reason);
  }

  /** The same change, with the attempt count starting over. */
  public Transition withAttemptsReset() {
    return new Transition(to, remoteId, reason, retryIn, announced, true, restartsWindow);
  }

  /**
   * The same change, proving no earlier attempt created the article (see {@code restartsWindow}).
   */
  public Transition withWindowRestarted() {
    return new Transition(to, remoteId, reason, retryIn, announced, resetsAttempts, true);
  }

  /** The type of the status event written with this change, or null when it is not announced. */
  public String eventType() {
    return announced ? to.eventType() : null;
  }
}
