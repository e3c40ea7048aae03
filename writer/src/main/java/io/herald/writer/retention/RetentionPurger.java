package io.herald.writer.retention;

import io.herald.config.Durations;
import io.herald.runtime.db.BatchedDelete;
import io.herald.runtime.db.ExpiredRows;
import io.herald.runtime.task.PeriodicTask;
import io.herald.writer.metrics.RetentionMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All of the writer's retention: deletes {@code writer.outbox} rows (with {@code
 * writer.outbox.retention=keep}) and {@code writer.inbox} rows (with the status view) older than
 * their window, each table in bounded batches on its own schedule ({@link RetentionSettings}).
 *
 * <p>Neither purge needs coordination. Deleting an outbox row the relay has not streamed yet loses
 * nothing: the relay reads the WAL through a slot that retains it. Forgetting an inbox event id
 * only matters if that event is delivered again later (an offset reset, a replay): it is then not
 * recognised as a duplicate, but it cannot move its job backwards either, because the job keeps the
 * (occurredAt, id) of the newest event it shows. Several writer instances may purge at once ({@code
 * SKIP LOCKED} keeps them off each other's rows).
 *
 * <p>Bounded: a run is at most {@code purgeMaxBatches} statements of {@code purgeBatchSize} rows,
 * each its own short transaction with a statement timeout ({@link BatchedDelete}). Each table has
 * its own {@link PeriodicTask} (the outbox and inbox intervals are separate settings); the first
 * run comes one interval after {@link #start()}. {@link #close()} lets the current statement
 * finish. A failed run is logged with its cause and counted ({@code
 * herald.writer.outbox.purge.failures}, {@code herald.writer.status.inbox.purge.failures}); the
 * next run tries again.
 *
 * <pre>{@code
 * RetentionPurger purger = lifecycle.register("retention purge",
 *     new RetentionPurger(pool, config.retention(), clock, registry));
 * purger.start();
 * }</pre>
 *
 * <p>Thread-safe: {@link #start()} once, {@link #close()} any number of times.
 */
public final class RetentionPurger implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetentionPurger.class);

  /** What expires an outbox row; the bind parameter is the cut-off instant. */
  private static final String OUTBOX_EXPIRED = "occurred_at < ?";

  /** What expires an inbox row. */
  private static final String INBOX_EXPIRED = "received_at < ?";

  /** Oldest first, along {@code ix_outbox_occurred_at}; rows another purger holds are skipped. */
  static final String PURGE_OUTBOX =
      """
      DELETE FROM writer.outbox WHERE id IN (
        SELECT id FROM writer.outbox WHERE %s
        ORDER BY occurred_at LIMIT ? FOR UPDATE SKIP LOCKED)
      """
          .formatted(OUTBOX_EXPIRED);

  /** Oldest first, along {@code ix_inbox_received_at}. */
  static final String PURGE_INBOX =
      """
      DELETE FROM writer.inbox WHERE (message_id, handler) IN (
        SELECT message_id, handler FROM writer.inbox WHERE %s
        ORDER BY received_at LIMIT ? FOR UPDATE SKIP LOCKED)
      """
          .formatted(INBOX_EXPIRED);

  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(30);

  private final List<TablePurge> purges = new ArrayList<>();
  private final DataSource dataSource;
  private final Clock clock;
  private final AtomicReference<Instant> lastSuccess = new AtomicReference<>();

  public RetentionPurger(
      DataSource dataSource, RetentionSettings settings, Clock clock, MeterRegistry registry) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.clock = Objects.requireNonNull(clock, "clock");
    // Thread and meter names are the ones the two purges had before they were one class.
    settings
        .outbox()
        .ifPresent(
            purge ->
                purges.add(
                    new TablePurge(
                        "writer.outbox",
                        "occurred_at older than writer.outbox.keep-days="
                            + purge.retention().toDays(),
                        "herald-outbox-purger",
                        RetentionMetrics.OUTBOX,
                        OUTBOX_EXPIRED,
                        PURGE_OUTBOX,
                        purge,
                        dataSource,
                        registry)));
    settings
        .inbox()
        .ifPresent(
            purge ->
                purges.add(
                    new TablePurge(
                        "writer.inbox",
                        "received_at older than writer.status.inbox-retention="
                            + Durations.format(purge.retention()),
                        "herald-writer-inbox-purger",
                        RetentionMetrics.INBOX,
                        INBOX_EXPIRED,
                        PURGE_INBOX,
                        purge,
                        dataSource,
                        registry)));
  }

  /** Schedules each table's runs: the first after one interval, then one interval apart. */
  public void start() {
    for (TablePurge purge : purges) {
      purge.task.start();
      log.info(
          "Retention purge of {} started: rows older than {} deleted every {} in batches of {} (at"
              + " most {} per run)",
          purge.table,
          purge.settings.retention(),
          purge.settings.purgeInterval(),
          purge.settings.purgeBatchSize(),
          purge.settings.purgeMaxBatches());
    }
  }

  /**
   * Deletes expired rows of every table now, on the calling thread: at most {@code purgeMaxBatches}
   * statements per table.
   *
   * @return the number of rows deleted
   */
  public long purgeOnce() throws SQLException {
    long deleted = 0;
    for (TablePurge purge : purges) {
      deleted += purge.run();
    }
    return deleted;
  }

  /**
   * Deletes every expired row of every table now, on the calling thread, with the statements of
   * {@link #purgeOnce()} but without its cap on statements per run ({@code herald purge --apply}).
   *
   * @return per table, the cut-off and the rows deleted
   */
  public List<ExpiredRows> purgeAll() throws SQLException {
    List<ExpiredRows> purged = new ArrayList<>(purges.size());
    for (TablePurge purge : purges) {
      purged.add(purge.runAll());
    }
    return purged;
  }

  /**
   * What a run would delete now, per table, counted with the purge's own condition and cut-off;
   * deletes nothing ({@code herald purge --dry-run}). Tables whose purge is off (retention
   * delete-immediately, no status view) are not listed: nothing purges them.
   */
  public List<ExpiredRows> expired() throws SQLException {
    List<ExpiredRows> expired = new ArrayList<>(purges.size());
    try (Connection connection = dataSource.getConnection()) {
      for (TablePurge purge : purges) {
        Instant cutoff = purge.cutoff();
        try (PreparedStatement count = connection.prepareStatement(purge.countSql())) {
          count.setObject(1, OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
          try (ResultSet row = count.executeQuery()) {
            row.next();
            expired.add(new ExpiredRows(purge.table, purge.rule, cutoff, row.getLong(1)));
          }
        }
      }
    }
    return expired;
  }

  /** Whether every purge thread is alive and started a run within {@code maxSilence}. */
  public boolean healthy(Duration maxSilence) {
    return purges.stream().allMatch(purge -> purge.task.healthy(maxSilence));
  }

  /** When a table's purge last completed without error; empty before the first. */
  public Optional<Instant> lastSuccess() {
    return Optional.ofNullable(lastSuccess.get());
  }

  @Override
  public void close() {
    for (TablePurge purge : purges) {
      purge.task.close();
    }
  }

  /** One table: its statement, its settings, its thread and its counters. */
  private final class TablePurge {

    final String table;
    final String rule;
    final String expired;
    final RetentionSettings.Purge settings;
    final BatchedDelete delete;
    final BatchedDelete deleteAll;
    final RetentionMetrics metrics;
    final PeriodicTask task;

    TablePurge(
        String table,
        String rule,
        String threadName,
        String meterPrefix,
        String expired,
        String sql,
        RetentionSettings.Purge settings,
        DataSource dataSource,
        MeterRegistry registry) {
      this.table = table;
      this.rule = rule;
      this.expired = expired;
      this.settings = settings;
      this.delete =
          new BatchedDelete(
              dataSource,
              sql,
              settings.purgeBatchSize(),
              settings.purgeMaxBatches(),
              STATEMENT_TIMEOUT);
      this.deleteAll =
          new BatchedDelete(
              dataSource, sql, settings.purgeBatchSize(), Integer.MAX_VALUE, STATEMENT_TIMEOUT);
      this.metrics = new RetentionMetrics(registry, meterPrefix, table);
      this.task =
          PeriodicTask.named(threadName)
              .every(settings.purgeInterval())
              .firstAfter(settings.purgeInterval())
              .onFailure(metrics::failure)
              .build(this::runLogged);
    }

    long run() throws SQLException {
      OffsetDateTime cutoff = OffsetDateTime.ofInstant(cutoff(), ZoneOffset.UTC);
      long deleted = delete.run(cutoff, task::stopping, metrics::purged);
      lastSuccess.set(clock.instant());
      return deleted;
    }

    ExpiredRows runAll() throws SQLException {
      Instant cutoff = cutoff();
      long deleted =
          deleteAll.run(
              OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC), task::stopping, metrics::purged);
      lastSuccess.set(clock.instant());
      return new ExpiredRows(table, rule, cutoff, deleted);
    }

    Instant cutoff() {
      return clock.instant().minus(settings.retention());
    }

    String countSql() {
      return "SELECT count(*) FROM " + table + " WHERE " + expired;
    }

    private void runLogged() throws SQLException {
      long deleted = run();
      if (deleted > 0) {
        log.info(
            "Retention purge deleted {} {} rows older than {}",
            deleted,
            table,
            settings.retention());
      }
    }
  }
}
