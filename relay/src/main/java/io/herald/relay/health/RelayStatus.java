package io.herald.relay.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the relay is doing right now, for {@code /health} and the metrics.
 *
 * <p>Written by the engine, sink, leader lock and slot monitor threads; read by the HTTP threads.
 * Every field is a single atomic, so readers see each value current but not a consistent snapshot
 * across fields, which is all a health probe needs.
 */
public final class RelayStatus {

  /**
   * The relay's role in its lifecycle; changed only forward, except between {@code STREAMING} and
   * {@code KAFKA_UNAVAILABLE}, and back to {@code STANDBY} when the leader loses its lock session.
   */
  public enum Phase {
    /**
     * Waiting for the leader lock: another relay streams, none has started yet, or this one lost
     * its lock session (the database went away) and contends for the lock again.
     */
    STANDBY,
    /** Holds the lock; checking the slot and offsets, starting the engine. */
    STARTING,
    /** The engine is connected and streaming. */
    STREAMING,
    /** The sink cannot reach Kafka and is retrying with backoff. */
    KAFKA_UNAVAILABLE,
    /** Shutting down on request. */
    STOPPING,
    /** Stopped because of an error; the process is about to exit. */
    FAILED
  }

  private final Clock clock;
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.STANDBY);
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final AtomicReference<String> standbyReason = new AtomicReference<>();
  private final AtomicReference<Instant> lastEventAt = new AtomicReference<>();
  private final AtomicReference<Instant> lastBatchAt = new AtomicReference<>();
  private final AtomicLong slotLagBytes = new AtomicLong(-1);
  private final AtomicLong failoverReady = new AtomicLong(-1);
  private final AtomicReference<String> failoverDetail = new AtomicReference<>();
  private final AtomicReference<Instant> sendingSince = new AtomicReference<>();

  public RelayStatus(Clock clock) {
    this.clock = clock;
  }

  public Phase phase() {
    return phase.get();
  }

  public void phase(Phase next) {
    phase.set(next);
  }

  /** Moves from {@code expected} to {@code next} only if the phase still is {@code expected}. */
  public boolean transition(Phase expected, Phase next) {
    return phase.compareAndSet(expected, next);
  }

  public void failed(String reason) {
    failure.set(reason);
    phase.set(Phase.FAILED);
  }

  public Optional<String> failure() {
    return Optional.ofNullable(failure.get());
  }

  /**
   * The leader lost its lock and stopped streaming: back to {@code STANDBY}, with no batch waiting
   * for Kafka and the slot lag unknown until it leads again.
   */
  public void backToStandby(String reason) {
    standbyReason.set(reason);
    sendingSince.set(null);
    slotLagBytes.set(-1);
    phase.set(Phase.STANDBY);
  }

  /** Why a former leader stands by again, while it does; empty for a standby that never led. */
  public Optional<String> standbyReason() {
    return phase.get() == Phase.STANDBY
        ? Optional.ofNullable(standbyReason.get())
        : Optional.empty();
  }

  /**
   * Records that the sink sent a batch; the wait for Kafka counts from the oldest batch still in
   * flight, so a later one leaves it as it is.
   */
  public void sending() {
    // Called for every batch: the clock is read only when no earlier batch is in flight.
    if (sendingSince.get() == null) {
      sendingSince.compareAndSet(null, clock.instant());
    }
  }

  /**
   * How long the oldest batch the sink has in flight has waited for Kafka: for its records'
   * acknowledgements, its transaction's commit, and the engine's offset commit, which the sink
   * waits for as it finishes each committed batch. Empty when nothing is in flight. A long wait
   * means Kafka is unreachable or too slow (the producer retries inside).
   */
  public Optional<Duration> waitingForKafka() {
    Instant since = sendingSince.get();
    return since == null ? Optional.empty() : Optional.of(Duration.between(since, clock.instant()));
  }

  /**
   * Records that Kafka committed a batch's transaction, with {@code events} published in it; dated
   * then, not once the engine's offset commit after it returns (that commit can wait out its whole
   * timeout while Kafka is gone, and the batch would look 10 s younger than it is).
   */
  public void batchDone(int events) {
    Instant now = clock.instant();
    lastBatchAt.set(now);
    if (events > 0) {
      lastEventAt.set(now);
    }
  }

  /** Records that the sink has nothing in flight: every batch it was given is settled. */
  public void settled() {
    sendingSince.set(null);
  }

  /** Time since the last published event, empty before the first one. */
  public Optional<Duration> lastEventAge() {
    Instant at = lastEventAt.get();
    return at == null ? Optional.empty() : Optional.of(Duration.between(at, clock.instant()));
  }

  /** Time since Kafka last committed a batch of the engine (heartbeats included). */
  public Optional<Duration> lastBatchAge() {
    Instant at = lastBatchAt.get();
    return at == null ? Optional.empty() : Optional.of(Duration.between(at, clock.instant()));
  }

  public void slotLagBytes(long bytes) {
    slotLagBytes.set(bytes);
  }

  /** Slot lag in bytes from the last check, -1 before the first check or when it failed. */
  public long slotLagBytes() {
    return slotLagBytes.get();
  }

  /** The slot's failover readiness from the last check ({@code relay.slot.failover}). */
  public void failover(boolean ready, String detail) {
    failoverDetail.set(detail);
    failoverReady.set(ready ? 1 : 0);
  }

  /** 1 ready, 0 not, -1 when not checked (failover off, standby, or the check failed). */
  public long failoverReady() {
    return failoverReady.get();
  }

  public Optional<String> failoverDetail() {
    return Optional.ofNullable(failoverDetail.get());
  }
}
