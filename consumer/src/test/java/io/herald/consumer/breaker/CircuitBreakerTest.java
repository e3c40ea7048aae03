package io.herald.consumer.breaker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.breaker.CircuitBreaker.State;
import io.herald.consumer.destination.Outcome;
import io.herald.devstack.HandClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private final HandClock clock = new HandClock();
  private final CircuitBreaker breaker =
      new CircuitBreaker(new BreakerSettings(3, Duration.ofSeconds(30)), clock);

  private void fail(int times) {
    for (int i = 0; i < times; i++) {
      breaker.record(BreakerSignal.UNWELL);
    }
  }

  @Test
  void shouldAdmitEverythingWhileClosed() {
    assertEquals(State.CLOSED, breaker.state());
    assertEquals(4, breaker.admit(4));
    assertEquals(Duration.ZERO, breaker.heldFor());
  }

  @Test
  void shouldOpenAfterTheConfiguredFailuresInARow() {
    fail(2);
    assertEquals(State.CLOSED, breaker.state());
    assertTrue(breaker.record(BreakerSignal.UNWELL), "the third failure opens it");
    assertEquals(State.OPEN, breaker.state());
    assertEquals(0, breaker.admit(4));
    assertEquals(Duration.ofSeconds(30), breaker.heldFor());
    assertEquals(1, breaker.snapshot().openedTotal());
    assertEquals(clock.instant().plusSeconds(30), breaker.snapshot().reopensAt());
  }

  @Test
  void shouldCountOnlyConsecutiveFailuresWhenAWellAnswerComesBetween() {
    fail(2);
    breaker.record(BreakerSignal.WELL);
    fail(2);
    assertEquals(State.CLOSED, breaker.state());
    assertEquals(2, breaker.snapshot().consecutiveFailures());
  }

  @Test
  void shouldLetOneProbeThroughWhenTheOpenTimeHasPassed() {
    fail(3);
    clock.advance(Duration.ofSeconds(29));
    assertEquals(0, breaker.admit(4));
    assertEquals(Duration.ofSeconds(1), breaker.heldFor());
    clock.advance(Duration.ofSeconds(1));
    assertEquals(1, breaker.admit(4));
    assertEquals(State.HALF_OPEN, breaker.state());
    breaker.claimed(1);
    assertEquals(0, breaker.admit(4), "one probe at a time");
  }

  @Test
  void shouldOfferTheProbeAgainWhenNothingWasDueToClaim() {
    fail(3);
    clock.advance(Duration.ofSeconds(30));
    assertEquals(1, breaker.admit(4));
    breaker.claimed(0);
    assertEquals(1, breaker.admit(4));
  }

  @Test
  void shouldCloseWhenTheProbeSucceeds() {
    fail(3);
    clock.advance(Duration.ofSeconds(30));
    breaker.admit(4);
    breaker.claimed(1);
    assertFalse(breaker.record(BreakerSignal.WELL));
    assertEquals(State.CLOSED, breaker.state());
    assertEquals(4, breaker.admit(4));
    assertNull(breaker.snapshot().reopensAt());
  }

  @Test
  void shouldOpenAgainForTheWholeTimeWhenTheProbeFails() {
    fail(3);
    clock.advance(Duration.ofSeconds(30));
    breaker.admit(4);
    breaker.claimed(1);
    assertTrue(breaker.record(BreakerSignal.UNWELL));
    assertEquals(State.OPEN, breaker.state());
    assertEquals(Duration.ofSeconds(30), breaker.heldFor());
    assertEquals(2, breaker.snapshot().openedTotal());
  }

  @Test
  void shouldOfferAnotherProbeWhenTheProbeWasNotSent() {
    fail(3);
    clock.advance(Duration.ofSeconds(30));
    breaker.admit(4);
    breaker.claimed(1);
    breaker.released();
    assertEquals(State.HALF_OPEN, breaker.state());
    assertEquals(1, breaker.admit(4));
  }

  @Test
  void shouldIgnoreResultsOfCallsStartedBeforeItOpened() {
    fail(3);
    breaker.record(BreakerSignal.WELL);
    breaker.record(BreakerSignal.UNWELL);
    assertEquals(State.OPEN, breaker.state());
    assertEquals(1, breaker.snapshot().openedTotal());
    assertEquals(Duration.ofSeconds(30), breaker.heldFor());
  }

  @Test
  void shouldNeverOpenWhenFailuresIsZero() {
    CircuitBreaker disabled =
        new CircuitBreaker(new BreakerSettings(0, Duration.ofSeconds(30)), clock);
    for (int i = 0; i < 100; i++) {
      assertFalse(disabled.record(BreakerSignal.UNWELL));
    }
    assertEquals(State.CLOSED, disabled.state());
    assertEquals(4, disabled.admit(4));
  }

  @Test
  void shouldCountFiveHundredsTimeoutsAndConnectFailuresAsUnwell() {
    assertEquals(BreakerSignal.UNWELL, BreakerSignal.of(new Outcome.Uncertain("HTTP 500", 500)));
    assertEquals(BreakerSignal.UNWELL, BreakerSignal.of(new Outcome.Uncertain("read timeout")));
    assertEquals(BreakerSignal.UNWELL, BreakerSignal.of(new Outcome.Retry("HTTP 503", null, 503)));
    assertEquals(
        BreakerSignal.UNWELL, BreakerSignal.of(new Outcome.Retry("not sent: refused", null)));
  }

  @Test
  void shouldCountAnswersOfAWorkingDestinationAsWell() {
    assertEquals(BreakerSignal.WELL, BreakerSignal.of(new Outcome.Published("r-1", 201)));
    assertEquals(BreakerSignal.WELL, BreakerSignal.of(new Outcome.Permanent("HTTP 422", 422)));
    assertEquals(BreakerSignal.WELL, BreakerSignal.of(new Outcome.Retry("HTTP 429", null, 429)));
    assertEquals(
        BreakerSignal.WELL, BreakerSignal.of(new Outcome.Uncertain("HTTP 201, no id", 201)));
    assertEquals(
        BreakerSignal.WELL, BreakerSignal.of(new Outcome.ReplayedError("replayed 400", 400)));
  }
}
