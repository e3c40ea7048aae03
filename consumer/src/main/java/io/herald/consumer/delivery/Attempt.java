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
 * @param requestHash SHA-256 (64 lower-case hex digits) of the exact request body sent, or null
 *     when none was sent (a lookup, a call withheld or interrupted before sending)
 */
public record Attempt(
    Kind kind,
    String owner,
    Duration took,
    String outcome,
    Integer httpStatus,
    String error,
    String requestHash) {

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
    if (requestHash != null && !requestHash.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException(
          "requestHash must be 64 lower-case hex digits (SHA-256): " + requestHash);
    }
    error = trim(error);
  }

  /** An attempt that sent no request body (a lookup, or a publish never sent). */
  public Attempt(
      Kind kind, String owner, Duration took, String outcome, Integer httpStatus, String error) {
    this(kind, owner, took, outcome, httpStatus, error, null);
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
