package io.herald.consumer.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * What a destination lets the policy do with an uncertain delivery.
 *
 * @param honoursIdempotencyKey a request sent again with the same key returns the article the first
 *     created, so an uncertain delivery may simply be sent again
 * @param supportsLookup the destination answers whether an article with the external reference
 *     exists
 * @param lookupGrace how long after becoming uncertain a delivery is looked up: longer than the
 *     destination may take to process a request it accepted
 */
public record Capabilities(
    boolean honoursIdempotencyKey, boolean supportsLookup, Duration lookupGrace) {

  public Capabilities {
    Objects.requireNonNull(lookupGrace, "lookupGrace");
    if (lookupGrace.isNegative()) {
      throw new IllegalArgumentException("lookup grace must not be negative: " + lookupGrace);
    }
  }
}
