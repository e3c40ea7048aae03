package io.herald.consumer.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private final Backoff backoff =
      new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), new SplittableRandom(42));

  @Test
  void shouldDoubleTheCeilingPerAttemptWithJitterInItsUpperHalf() {
    for (int attempt = 1; attempt <= 5; attempt++) {
      long ceiling = 100L << (attempt - 1);
      for (int i = 0; i < 200; i++) {
        long delay = backoff.delay(attempt, null).toMillis();
        assertTrue(delay >= ceiling / 2 && delay <= ceiling, attempt + ": " + delay);
      }
    }
  }

  @Test
  void shouldNeverExceedTheMaximum() {
    for (int attempt = 1; attempt <= 100; attempt++) {
      assertTrue(backoff.delay(attempt, null).compareTo(Duration.ofSeconds(10)) <= 0);
    }
  }

  @Test
  void shouldHonourRetryAfterUpToTheMaximum() {
    assertEquals(Duration.ofSeconds(3), backoff.delay(1, Duration.ofSeconds(3)));
    assertEquals(Duration.ofSeconds(10), backoff.delay(1, Duration.ofHours(1)));
  }

  @Test
  void shouldRejectAMaximumBelowTheInitialDelay() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), new SplittableRandom()));
  }
}
