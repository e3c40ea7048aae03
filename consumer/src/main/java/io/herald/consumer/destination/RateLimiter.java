package io.herald.consumer.destination;

import java.util.function.LongSupplier;

/**
 * Spaces requests to one destination at most {@code perSecond} a second (the profile's {@code
 * rate-limit}): each caller reserves the next free slot and sleeps until it. No burst beyond one
 * request, no thread of its own, memory of one number. Thread-safe.
 */
final class RateLimiter {

  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private long nextFreeNanos;

  /**
   * @param perSecond requests per second, 0 for no limit
   * @param nanoTime {@code System::nanoTime}, or a hand clock in tests
   */
  RateLimiter(int perSecond, LongSupplier nanoTime) {
    if (perSecond < 0) {
      throw new IllegalArgumentException("rate limit must not be negative: " + perSecond);
    }
    this.intervalNanos = perSecond == 0 ? 0 : 1_000_000_000L / perSecond;
    this.nanoTime = nanoTime;
    this.nextFreeNanos = nanoTime.getAsLong();
  }

  /** Reserves the next slot; returns how long the caller must wait for it (0: go now). */
  synchronized long reserve() {
    if (intervalNanos == 0) {
      return 0;
    }
    long now = nanoTime.getAsLong();
    long slot = Math.max(now, nextFreeNanos);
    nextFreeNanos = slot + intervalNanos;
    return slot - now;
  }

  /** Blocks until this caller's slot. */
  void acquire() throws InterruptedException {
    long waitNanos = reserve();
    if (waitNanos > 0) {
      Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
    }
  }
}
