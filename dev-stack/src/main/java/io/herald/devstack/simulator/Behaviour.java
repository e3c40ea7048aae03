package io.herald.devstack.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * The contract a simulated publishing API offers.
 *
 * @param honoursIdempotencyKey when true, a request whose {@code Idempotency-Key} was seen before
 *     returns the article created then instead of creating another one
 * @param supportsLookup when true, {@code GET /articles?externalReference=...} answers 200 or 404;
 *     when false it answers 501
 * @param latency added to every request before it is processed
 */
public record Behaviour(boolean honoursIdempotencyKey, boolean supportsLookup, Duration latency) {

  public Behaviour {
    Objects.requireNonNull(latency, "latency");
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
  }

  /** Honours idempotency keys, supports lookup, no latency. */
  public static Behaviour cooperative() {
    return new Behaviour(true, true, Duration.ZERO);
  }

  /** Ignores idempotency keys and offers no lookup: the hardest destination to publish to once. */
  public static Behaviour bare() {
    return new Behaviour(false, false, Duration.ZERO);
  }

  public Behaviour withIdempotency(boolean honours) {
    return new Behaviour(honours, supportsLookup, latency);
  }

  public Behaviour withLookup(boolean supported) {
    return new Behaviour(honoursIdempotencyKey, supported, latency);
  }

  public Behaviour withLatency(Duration newLatency) {
    return new Behaviour(honoursIdempotencyKey, supportsLookup, newLatency);
  }
}
