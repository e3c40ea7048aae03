package io.herald.devstack;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand, in UTC; read and moved from any thread. */
public final class HandClock extends Clock {

  private volatile Instant now;

  /** A clock at {@code start}. */
  public HandClock(Instant start) {
    this.now = start;
  }

  /** A clock at 2026-12-01T12:00:00Z. */
  public HandClock() {
    this(Instant.parse("2026-12-01T12:00:00Z"));
  }

  /** Moves the clock on by {@code by}. */
  public void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
