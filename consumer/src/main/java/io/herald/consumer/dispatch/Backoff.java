package io.herald.consumer.dispatch;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with "equal jitter": the delay for attempt {@code n} is half of {@code
 * min(max, initial * 2^(n-1))} plus a random share of the other half, so instances that failed
 * together do not retry together. A destination's {@code Retry-After} is honoured up to {@code
 * max}.
 *
 * <p>Thread-safe if the random generator is (the default {@code RandomGenerator.getDefault()} is
 * not shared across threads by callers that care; jitter quality is not a correctness property).
 */
public final class Backoff {

  private final Duration initial;
  private final Duration max;
  private final RandomGenerator random;

  public Backoff(Duration initial, Duration max, RandomGenerator random) {
    this.initial = Objects.requireNonNull(initial, "initial");
    this.max = Objects.requireNonNull(max, "max");
    this.random = Objects.requireNonNull(random, "random");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial backoff must be positive: " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "max backoff " + max + " must not be shorter than the initial " + initial);
    }
  }

  /**
   * @param attempt the attempt that just failed, from 1
   * @param retryAfter the destination's hint, or null
   */
  public Duration delay(int attempt, Duration retryAfter) {
    long ceiling = initial.toMillis();
    for (int i = 1; i < attempt && ceiling < max.toMillis(); i++) {
      ceiling *= 2;
    }
    ceiling = Math.min(ceiling, max.toMillis());
    long half = ceiling / 2;
    long jittered = half + random.nextLong(ceiling - half + 1);
    if (retryAfter != null) {
      jittered = Math.max(jittered, Math.min(retryAfter.toMillis(), max.toMillis()));
    }
    return Duration.ofMillis(jittered);
  }
}
