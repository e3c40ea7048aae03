package io.herald.consumer.breaker;

import io.herald.consumer.destination.Outcome;

/**
 * What one call says about a destination's health, classified once from its {@link Outcome}: the
 * kinds that say the destination is unwell (a 5xx, a timeout or broken connection, a connection
 * that could not be made) count towards opening its breaker; any other answer (2xx, a 4xx
 * rejection, a 429 or 409 asking to come back later) proves it is up.
 */
public enum BreakerSignal {
  /** The destination answered as a working one does. */
  WELL,
  /** A 5xx, a timeout, a broken or refused connection: the destination is unwell. */
  UNWELL;

  /** The signal of a call that was made. */
  public static BreakerSignal of(Outcome outcome) {
    return switch (outcome) {
      case Outcome.Published published -> WELL;
      case Outcome.Permanent permanent -> WELL;
      case Outcome.ReplayedError replayed -> WELL;
      // A 5xx, a read timeout, a connection broken after sending, an answer without an id.
      case Outcome.Uncertain uncertain ->
          uncertain.httpStatus() == null || uncertain.httpStatus() >= 500 ? UNWELL : WELL;
      // No status: refused, connect timeout, unknown host. 503 is the destination saying so;
      // 408, 409 (in flight) and 429 are a working destination pacing its callers.
      case Outcome.Retry retry ->
          retry.httpStatus() == null || retry.httpStatus() >= 500 ? UNWELL : WELL;
    };
  }
}
