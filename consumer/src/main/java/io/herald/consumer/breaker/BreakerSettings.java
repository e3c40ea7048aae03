package io.herald.consumer.breaker;

import java.time.Duration;
import java.util.Objects;

/**
 * A destination's circuit breaker: the {@code consumer.destinations.<name>.breaker.*} keys, each
 * field named after its key and validated by {@code ConsumerConfig}. Immutable.
 *
 * @param failures {@code breaker.failures}: consecutive unwell outcomes (5xx, timeouts, connect
 *     failures) that open the breaker; 0 disables it
 * @param openFor {@code breaker.open-for}: how long an open breaker holds the destination's
 *     deliveries before one probe is let through
 */
public record BreakerSettings(int failures, Duration openFor) {

  /** The shipped defaults: five failures in a row open it for thirty seconds. */
  public static final BreakerSettings DEFAULT = new BreakerSettings(5, Duration.ofSeconds(30));

  public BreakerSettings {
    Objects.requireNonNull(openFor, "openFor");
  }

  /** Whether the breaker ever opens. */
  public boolean enabled() {
    return failures > 0;
  }
}
