package io.herald.relay.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The relay's meters, registered once. Names follow Micrometer's dotted style; the Prometheus
 * registry renders them as {@code herald_relay_events_published_total} and so on.
 *
 * <p>Thread-safe (Micrometer meters are).
 */
public final class RelayMetrics {

  private final Counter published;
  private final Counter skipped;
  private final Counter sendErrors;
  private final Counter sendRetries;
  private final Counter producerReplaced;
  private final DistributionSummary batchSize;
  private final Timer batchLatency;
  private final Counter leadershipLost;
  private final Counter slotConfirmedFromFlush;
  private final Counter slotConfirmedByReadBack;

  public RelayMetrics(MeterRegistry registry, RelayStatus status) {
    published =
        Counter.builder("herald.relay.events.published")
            .description("Outbox events acknowledged by Kafka")
            .register(registry);
    skipped =
        Counter.builder("herald.relay.events.skipped")
            .description("Heartbeat records that only advance the offset")
            .register(registry);
    sendErrors =
        Counter.builder("herald.relay.send.errors")
            .description("Kafka sends that failed (each is retried or stops the relay)")
            .register(registry);
    sendRetries =
        Counter.builder("herald.relay.send.retries")
            .description("Batch remainders sent again after a retriable Kafka failure")
            .register(registry);
    producerReplaced =
        Counter.builder("herald.relay.producer.replaced")
            .description(
                "Kafka producers closed after a failure that left them unusable, and replaced by a"
                    + " new one of the same transactional.id")
            .register(registry);
    batchSize =
        DistributionSummary.builder("herald.relay.batch.size")
            .description("Records per batch handed over by the engine")
            .register(registry);
    batchLatency =
        Timer.builder("herald.relay.batch.send.latency")
            .description("From the first send of a batch to the last acknowledgement")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    leadershipLost =
        Counter.builder("herald.relay.leadership.lost")
            .description(
                "Times this relay lost its leader lock session, stopped streaming and stood by again")
            .register(registry);
    slotConfirmedFromFlush = slotConfirmations(registry, "flush");
    slotConfirmedByReadBack = slotConfirmations(registry, "read-back");
    Gauge.builder("herald.relay.slot.lag.bytes", status, RelayStatus::slotLagBytes)
        .description("pg_current_wal_lsn() - confirmed_flush_lsn of the slot; -1 when unknown")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("herald.relay.slot.failover.ready", status, RelayStatus::failoverReady)
        .description(
            "1 when the slot is a failover slot and synchronized_standby_slots names only active"
                + " standby slots, 0 when not, -1 when not checked (relay.slot.failover off)")
        .register(registry);
    Gauge.builder(
            "herald.relay.last.event.age.seconds",
            status,
            s -> s.lastEventAge().map(d -> d.toMillis() / 1000.0).orElse(-1.0))
        .description("Seconds since the last published event; -1 before the first")
        .register(registry);
    Gauge.builder(
            "herald.relay.streaming",
            status,
            s -> s.phase() == RelayStatus.Phase.STREAMING ? 1.0 : 0.0)
        .description("1 while this relay holds the lock and streams")
        .register(registry);
    Gauge.builder(
            "herald.relay.standby", status, s -> s.phase() == RelayStatus.Phase.STANDBY ? 1.0 : 0.0)
        .description("1 while this relay waits for the leader lock")
        .register(registry);
  }

  private static Counter slotConfirmations(MeterRegistry registry, String from) {
    return Counter.builder("herald.relay.slot.confirmations")
        .description(
            "Positions confirmed to the slot, by where the relay's task took them: from the"
                + " engine's last offset flush, or read back from the offsets topic (before the"
                + " first flush of a term, after a flush on another thread; one that finds"
                + " nothing stored yet confirms nothing and counts all the same); read-backs that"
                + " keep growing while streaming mean the Debezium patch no longer applies")
        .tag("from", from)
        .register(registry);
  }

  /** One confirmation of a position to the slot, read back from the offsets topic or not. */
  public void slotConfirmed(boolean readBack) {
    (readBack ? slotConfirmedByReadBack : slotConfirmedFromFlush).increment();
  }

  public void published(int count) {
    published.increment(count);
  }

  public void skipped(int count) {
    skipped.increment(count);
  }

  public void sendError() {
    sendErrors.increment();
  }

  public void sendRetry() {
    sendRetries.increment();
  }

  public void producerReplaced() {
    producerReplaced.increment();
  }

  public void leadershipLost() {
    leadershipLost.increment();
  }

  public void batch(int size, Duration sendTime) {
    batchSize.record(size);
    batchLatency.record(sendTime);
  }
}
