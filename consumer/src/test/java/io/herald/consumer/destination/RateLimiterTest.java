package io.herald.consumer.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  @Test
  void shouldSpaceRequestsByOneIntervalWhenTheyComeTogether() {
    RateLimiter limiter = new RateLimiter(4, now::get);

    assertEquals(0, limiter.reserve());
    assertEquals(250_000_000L, limiter.reserve());
    assertEquals(500_000_000L, limiter.reserve());
  }

  @Test
  void shouldLetARequestGoAtOnceAfterAQuietInterval() {
    RateLimiter limiter = new RateLimiter(4, now::get);
    limiter.reserve();

    now.addAndGet(1_000_000_000L);

    assertEquals(0, limiter.reserve());
    // No burst is saved up by the quiet second: the next one waits a whole interval.
    assertEquals(250_000_000L, limiter.reserve());
  }

  @Test
  void shouldNeverWaitWithoutALimit() {
    RateLimiter limiter = new RateLimiter(0, now::get);

    for (int i = 0; i < 100; i++) {
      assertEquals(0, limiter.reserve());
    }
  }
}
