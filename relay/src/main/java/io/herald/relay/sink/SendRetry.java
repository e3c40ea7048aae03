package io.herald.relay.sink;

import java.time.Duration;

/**
 * How long the sink keeps re-sending a batch after Kafka failed it with a retriable error.
 *
 * <p>The producer already retries internally until {@code delivery.timeout.ms}; this policy covers
 * outages longer than that. Backoff doubles from {@code initialBackoff} up to {@code maxBackoff};
 * once {@code giveUpAfter} has passed since the first failure of the batch, the sink throws, the
 * engine stops without committing past the last acknowledged record, and the process exits so its
 * supervisor (or the standby) takes over. While it waits, the engine's bounded queue and the
 * producer's {@code buffer.memory} bound the heap.
 */
public record SendRetry(Duration initialBackoff, Duration maxBackoff, Duration giveUpAfter) {

  public SendRetry {
    requirePositive(initialBackoff, "initialBackoff");
    requirePositive(maxBackoff, "maxBackoff");
    requirePositive(giveUpAfter, "giveUpAfter");
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "maxBackoff " + maxBackoff + " is shorter than initialBackoff " + initialBackoff);
    }
  }

  /** Backoff before retry number {@code attempt} (1-based). */
  Duration backoff(int attempt) {
    long millis = initialBackoff.toMillis();
    for (int i = 1; i < attempt && millis < maxBackoff.toMillis(); i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }

  private static void requirePositive(Duration value, String name) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
