package io.herald.writer.status;

import io.herald.runtime.db.BatchedDelete;
import io.herald.runtime.task.PeriodicTask;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes {@code writer.inbox} rows older than the retention window, in bounded batches, on one
 * background thread.
 *
 * <p>Forgetting an event id only matters if that event is delivered again later (an offset reset, a
 * replay): it is then not recognised as a duplicate, but it cannot move its job backwards either,
 * because the job keeps the (occurredAt, id) of the newest event it shows. So the window bounds the
 * table, not correctness.
 *
 * <p>Bounded: at most {@code maxBatches} statements of {@code batchSize} rows per run, each its own
 * short transaction; several writers may purge at once ({@code SKIP LOCKED}). Stoppable: {@link
 * #close()} lets the current statement finish (a {@link PeriodicTask}). A failed run is logged with
 * its cause and counted in {@code herald.writer.status.inbox.purge.failures}; the next run tries
 * again.
 */
final class InboxPurger implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InboxPurger.class);

  /** Oldest first, along {@code ix_inbox_received_at}. */
  static final String PURGE_BATCH =
      """
      DELETE FROM writer.inbox WHERE (message_id, handler) IN (
        SELECT message_id, handler FROM writer.inbox WHERE received_at < ?
        ORDER BY received_at LIMIT ? FOR UPDATE SKIP LOCKED)
      """;

  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(30);

  private final BatchedDelete delete;
  private final Duration retention;
  private final Duration interval;
  private final int batchSize;
  private final Clock clock;
  private final Counter purged;
  private final PeriodicTask task;

  InboxPurger(DataSource dataSource, StatusSettings settings, Clock clock, MeterRegistry registry) {
    this.retention = settings.inboxRetention();
    this.interval = settings.inboxPurgeInterval();
    this.batchSize = settings.inboxPurgeBatchSize();
    int maxBatches = settings.inboxPurgeMaxBatches();
    this.delete =
        new BatchedDelete(
            Objects.requireNonNull(dataSource, "dataSource"),
            PURGE_BATCH,
            batchSize,
            maxBatches,
            STATEMENT_TIMEOUT);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.purged =
        Counter.builder("herald.writer.status.inbox.purged")
            .description("writer.inbox rows deleted after the retention window")
            .register(registry);
    Counter failures =
        Counter.builder("herald.writer.status.inbox.purge.failures")
            .description("Inbox purge runs that failed (logged with their cause)")
            .register(registry);
    this.task =
        PeriodicTask.named("herald-writer-inbox-purger")
            .every(interval)
            .firstAfter(interval)
            .onFailure(failures::increment)
            .build(this::runOnce);
  }

  /** Schedules the runs: the first after one interval, then one interval apart. */
  void start() {
    task.start();
    log.info(
        "Inbox purge started: writer.inbox rows older than {} deleted every {} in batches of {}",
        retention,
        interval,
        batchSize);
  }

  /**
   * Deletes expired rows now, on the calling thread: at most {@code maxBatches} statements.
   *
   * @return the number of rows deleted
   */
  long purgeOnce() throws SQLException {
    OffsetDateTime cutoff =
        OffsetDateTime.ofInstant(clock.instant().minus(retention), ZoneOffset.UTC);
    return delete.run(cutoff, task::stopping, purged::increment);
  }

  /** Whether the purge thread is alive and a run started within {@code maxSilence}. */
  boolean healthy(Duration maxSilence) {
    return task.healthy(maxSilence);
  }

  private void runOnce() throws SQLException {
    long deleted = purgeOnce();
    if (deleted > 0) {
      log.info("Inbox purge deleted {} writer.inbox rows older than {}", deleted, retention);
    }
  }

  @Override
  public void close() {
    task.close();
  }
}
