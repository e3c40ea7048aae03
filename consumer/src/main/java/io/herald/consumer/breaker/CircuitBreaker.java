package io.herald.consumer.breaker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One destination's circuit breaker, a small state machine over call outcomes:
 *
 * <pre>
 * CLOSED --(failures unwell outcomes in a row)--> OPEN --(open-for passed)--> HALF_OPEN
 * HALF_OPEN --(the probe is well)--> CLOSED;  HALF_OPEN --(the probe is unwell)--> OPEN
 * </pre>
 *
 * <p>The dispatcher asks {@link #admit} how many deliveries it may claim for the destination (all
 * it has room for while closed, none while open, one probe when half-open), tells {@link #claimed}
 * how many it got, and reports each call's {@link BreakerSignal} to {@link #record}, or {@link
 * #released} for a claim that was not sent. Results that arrive while open (calls started before it
 * opened) change nothing. With {@code failures == 0} the breaker stays closed.
 *
 * <p>The state lives in this instance's memory: each consumer instance judges a destination by its
 * own calls. Time comes from the injected clock. Thread-safe (synchronized; a few field updates).
 */
public final class CircuitBreaker {

  /** The breaker's state; {@link #gauge()} is its value in metrics. */
  public enum State {
    CLOSED(0),
    HALF_OPEN(1),
    OPEN(2);

    private final int gauge;

    State(int gauge) {
      this.gauge = gauge;
    }

    /** 0 closed, 1 half-open, 2 open. */
    public int gauge() {
      return gauge;
    }
  }

  /** A moment's view of the breaker, for the operator API and logs. */
  public record Snapshot(
      State state, int consecutiveFailures, Instant reopensAt, long openedTotal) {}

  private final BreakerSettings settings;
  private final Clock clock;
  private State state = State.CLOSED;
  private int consecutiveFailures;
  private Instant openUntil;
  private boolean probing;
  private long openedTotal;

  public CircuitBreaker(BreakerSettings settings, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * How many deliveries may be claimed now, given room for {@code free}: {@code free} while closed,
   * 0 while open (an open breaker whose time has passed turns half-open here), 1 while half-open
   * and no probe is out.
   */
  public synchronized int admit(int free) {
    if (state == State.OPEN && !clock.instant().isBefore(openUntil)) {
      state = State.HALF_OPEN;
      probing = false;
    }
    return switch (state) {
      case CLOSED -> free;
      case OPEN -> 0;
      case HALF_OPEN -> probing ? 0 : Math.min(free, 1);
    };
  }

  /** The claim that followed {@link #admit} got {@code count} deliveries. */
  public synchronized void claimed(int count) {
    if (state == State.HALF_OPEN && count > 0) {
      probing = true;
    }
  }

  /**
   * A call's outcome.
   *
   * @return whether this outcome opened the breaker (from closed or from half-open)
   */
  public synchronized boolean record(BreakerSignal signal) {
    Objects.requireNonNull(signal, "signal");
    if (!settings.enabled()) {
      return false;
    }
    switch (state) {
      case CLOSED -> {
        if (signal == BreakerSignal.WELL) {
          consecutiveFailures = 0;
        } else if (++consecutiveFailures >= settings.failures()) {
          open();
          return true;
        }
      }
      case HALF_OPEN -> {
        probing = false;
        if (signal == BreakerSignal.WELL) {
          state = State.CLOSED;
          consecutiveFailures = 0;
        } else {
          open();
          return true;
        }
      }
      case OPEN -> {
        // A call started before the breaker opened: it says nothing about the time since.
      }
    }
    return false;
  }

  /** A claimed delivery was not sent (cancelled, withheld): a probe may go again. */
  public synchronized void released() {
    if (state == State.HALF_OPEN) {
      probing = false;
    }
  }

  /**
   * How long the destination's deliveries are still held: the rest of the open time, zero unless
   * open.
   */
  public synchronized Duration heldFor() {
    if (state != State.OPEN) {
      return Duration.ZERO;
    }
    Duration left = Duration.between(clock.instant(), openUntil);
    return left.isNegative() ? Duration.ZERO : left;
  }

  public synchronized State state() {
    return state;
  }

  public synchronized Snapshot snapshot() {
    return new Snapshot(
        state, consecutiveFailures, state == State.OPEN ? openUntil : null, openedTotal);
  }

  private void open() {
    state = State.OPEN;
    probing = false;
    consecutiveFailures = 0;
    openUntil = clock.instant().plus(settings.openFor());
    openedTotal++;
  }

  @Override
  public synchronized String toString() {
    return state == State.OPEN ? "OPEN until " + openUntil : state.name();
  }
}
