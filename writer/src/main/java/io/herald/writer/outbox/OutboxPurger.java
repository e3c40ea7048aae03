package io.herald.writer.outbox;

import io.herald.runtime.db.BatchedDelete;
import io.herald.runtime.task.PeriodicTask;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes outbox rows older than the retention window ({@code writer.outbox.retention=keep}) in
 * bounded batches, on one background thread, every {@code interval}.
 *
 * <p>Deleting a row the relay has not streamed yet loses nothing: the relay reads the WAL through a
 * slot that retains it. So the purge needs no coordination with the relay, and several writer
 * instances may purge at once ({@code SKIP LOCKED} keeps them off each other's rows).
 *
 * <p>Bounded: at most {@code maxBatchesPerRun} batches of {@code batchSize} rows per run, each in
 * its own short transaction with a statement timeout. Stoppable: {@link #close()} lets the current
 * batch finish and waits for it (a {@link PeriodicTask}). A failed run is logged with its cause,
 * counted in {@code herald.writer.outbox.purge.failures}, and the next run tries again.
 */
public final class OutboxPurger implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxPurger.class);

  /** Oldest first, along {@code ix_outbox_occurred_at}; rows another purger holds are skipped. */
  static final String PURGE_BATCH =
      """
      DELETE FROM writer.outbox WHERE id IN (
        SELECT id FROM writer.outbox WHERE occurred_at < ?
        ORDER BY occurred_at LIMIT ? FOR UPDATE SKIP LOCKED)
      """;

  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(30);

  private final BatchedDelete delete;
  private final Duration keepFor;
  private final Duration interval;
  private final int batchSize;
  private final int maxBatchesPerRun;
  private final Clock clock;
  private final Counter purged;
  private final AtomicReference<Instant> lastSuccess = new AtomicReference<>();
  private final PeriodicTask task;

  public OutboxPurger(
      DataSource dataSource,
      Duration keepFor,
      Duration interval,
      int batchSize,
      int maxBatchesPerRun,
      Clock clock,
      MeterRegistry registry) {
    this.keepFor = Objects.requireNonNull(keepFor, "keepFor");
    if (keepFor.isNegative() || keepFor.isZero()) {
      throw new IllegalArgumentException("outbox keepFor must be positive, was " + keepFor);
    }
    this.interval = Objects.requireNonNull(interval, "interval");
    if (batchSize < 1 || maxBatchesPerRun < 1) {
      throw new IllegalArgumentException(
          "outbox purge batchSize and maxBatchesPerRun must be positive, were "
              + batchSize
              + " and "
              + maxBatchesPerRun);
    }
    this.batchSize = batchSize;
    this.maxBatchesPerRun = maxBatchesPerRun;
    this.delete =
        new BatchedDelete(dataSource, PURGE_BATCH, batchSize, maxBatchesPerRun, STATEMENT_TIMEOUT);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.purged =
        Counter.builder("herald.writer.outbox.purged")
            .description("Outbox rows deleted after the retention window")
            .register(registry);
    Counter failures =
        Counter.builder("herald.writer.outbox.purge.failures")
            .description("Outbox purge runs that failed (logged with their cause)")
            .register(registry);
    this.task =
        PeriodicTask.named("herald-outbox-purger")
            .every(interval)
            .firstAfter(interval)
            .onFailure(failures::increment)
            .build(this::runOnce);
  }

  /** Schedules the runs: the first after one {@code interval}, then {@code interval} apart. */
  public void start() {
    task.start();
    log.info(
        "Outbox purge started: rows older than {} deleted every {} in batches of {} (at most {} per"
            + " run)",
        keepFor,
        interval,
        batchSize,
        maxBatchesPerRun);
  }

  /**
   * Whether the purge thread is alive and a run started within {@code maxSilence} (allow one
   * interval plus a run).
   */
  public boolean healthy(Duration maxSilence) {
    return task.healthy(maxSilence);
  }

  /** When the last run completed without error; empty before the first. */
  public Optional<Instant> lastSuccess() {
    return Optional.ofNullable(lastSuccess.get());
  }

  /**
   * Deletes expired rows now, on the calling thread: at most {@code maxBatchesPerRun} batches.
   *
   * @return the number of rows deleted
   */
  public long purgeOnce() throws SQLException {
    OffsetDateTime cutoff =
        OffsetDateTime.ofInstant(clock.instant().minus(keepFor), ZoneOffset.UTC);
    long total = delete.run(cutoff, task::stopping, purged::increment);
    lastSuccess.set(clock.instant());
    return total;
  }

  private void runOnce() throws SQLException {
    long deleted = purgeOnce();
    if (deleted > 0) {
      log.info("Outbox purge deleted {} rows older than {}", deleted, keepFor);
    }
  }

  @Override
  public void close() {
    task.close();
  }
}
