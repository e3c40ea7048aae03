package io.herald.consumer.policy;

import io.herald.consumer.destination.DestinationConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * What a destination lets the policy do with an uncertain delivery.
 *
 * @param honoursIdempotencyKey a request sent again with the same key returns the article the first
 *     created, so an uncertain delivery may simply be sent again, inside {@code resendWindow}
 * @param supportsLookup the destination answers whether an article with the external reference
 *     exists
 * @param lookupGrace how long after becoming uncertain a delivery is looked up: longer than the
 *     destination may take to process a request it accepted
 * @param resendWindow how long after a delivery's first attempt a resend with its key still lands
 *     inside the destination's dedup window (the window less one call); past it the key protects
 *     nothing. {@link #UNBOUNDED} for a key that is never forgotten; ignored without a key
 */
public record Capabilities(
    boolean honoursIdempotencyKey,
    boolean supportsLookup,
    Duration lookupGrace,
    Duration resendWindow) {

  /** A window no delivery outlives (a hundred years): a key that is never forgotten. */
  public static final Duration UNBOUNDED = Duration.ofDays(36_500);

  public Capabilities {
    Objects.requireNonNull(lookupGrace, "lookupGrace");
    Objects.requireNonNull(resendWindow, "resendWindow");
    if (lookupGrace.isNegative()) {
      throw new IllegalArgumentException("lookup grace must not be negative: " + lookupGrace);
    }
    if (resendWindow.isNegative()) {
      throw new IllegalArgumentException("resend window must not be negative: " + resendWindow);
    }
  }

  /** A destination whose keys, if it honours any, are never forgotten. */
  public Capabilities(boolean honoursIdempotencyKey, boolean supportsLookup, Duration lookupGrace) {
    this(honoursIdempotencyKey, supportsLookup, lookupGrace, UNBOUNDED);
  }

  /** What the policy knows of the destination {@code config} describes. */
  public static Capabilities of(DestinationConfig config, Duration lookupGrace) {
    return new Capabilities(
        config.idempotencyKeySupported(),
        config.lookupSupported(),
        lookupGrace,
        config.idempotencyKeySupported() ? config.resendWindow() : UNBOUNDED);
  }

  /** Whether the key has a window a delivery can outlive, so the rules split by age. */
  boolean keyExpires() {
    return honoursIdempotencyKey && resendWindow.compareTo(UNBOUNDED) < 0;
  }
}
