package io.herald.consumer.delivery;

import java.time.Duration;
import java.util.Objects;

/**
 * One call to a destination under a claim, recorded in {@code consumer.delivery_attempt} by {@link
 * DeliveryQueue#complete} in the transaction that records the call's result, also when the fencing
 * token refuses that result (the call was made and may have taken effect). Immutable.
 *
 * @param kind a publish, or a reconciler's lookup
 * @param owner the claim's owner ({@code consumer.dispatch.owner} of the calling instance)
 * @param took how long the call took, measured by the caller on a monotonic clock; the row's times
 *     are the database's ({@code ended_at = now()}, {@code started_at = now() - took}), the clock
 *     of leases and due times
 * @param outcome what the call established ({@code Outcome.label()}, {@code LookupResult.label()})
 * @param httpStatus the destination's answer, or null when none came
 * @param error why, or null for a plain success; trimmed to {@value #MAX_ERROR_LENGTH} characters
 */
public record Attempt(
    Kind kind, String owner, Duration took, String outcome, Integer httpStatus, String error) {

  /** Longest error text kept (the table's {@code ck_delivery_attempt_error}). */
  public static final int MAX_ERROR_LENGTH = 1000;

  private static final String TRIMMED = "...";

  /** What the call was. */
  public enum Kind {
    PUBLISH,
    LOOKUP
  }

  public Attempt {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(took, "took");
    Objects.requireNonNull(outcome, "outcome");
    if (took.isNegative()) {
      throw new IllegalArgumentException("took must not be negative: " + took);
    }
    error = trim(error);
  }

  private static String trim(String error) {
    if (error == null || error.length() <= MAX_ERROR_LENGTH) {
      return error;
    }
    int end = MAX_ERROR_LENGTH - TRIMMED.length();
    if (Character.isHighSurrogate(error.charAt(end - 1))) {
      end--;
    }
    return error.substring(0, end) + TRIMMED;
  }
}
