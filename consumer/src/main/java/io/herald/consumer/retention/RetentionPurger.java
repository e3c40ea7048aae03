package io.herald.consumer.retention;

import io.herald.config.Durations;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.runtime.db.BatchedDelete;
import io.herald.runtime.db.ExpiredRows;
import io.herald.runtime.task.PeriodicTask;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old inbox rows, finished deliveries (with their attempts) and status events in bounded
 * batches. Safe on every instance at once: each batch locks its rows with {@code SKIP LOCKED}.
 *
 * <p>Bounded: each table is purged in batches of {@code batchSize} until a batch comes back short
 * or the purger is closing. Ages are measured by the database clock ({@code now()}). {@link
 * #expired()} counts what a round would delete with the same conditions, for {@code herald purge
 * --dry-run}. Lifecycle ({@link PeriodicTask}): {@link #start()} once, {@link #close()} once; the
 * rounds may also be run on the caller's thread without {@link #start()}. Thread-safe.
 */
public final class RetentionPurger implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetentionPurger.class);

  /** The age bind parameter (milliseconds) as a cut-off on the database clock. */
  private static final String CUTOFF = "now() - ? * interval '1 millisecond'";

  private static final String INBOX_EXPIRED = "received_at < " + CUTOFF;

  private static final String DELIVERY_EXPIRED =
      "state IN ('PUBLISHED', 'FAILED', 'ABANDONED') AND updated_at < " + CUTOFF;

  private static final String OUTBOX_EXPIRED = "occurred_at < " + CUTOFF;

  private static final String PURGE_INBOX =
      """
      DELETE FROM consumer.inbox i
       USING (SELECT message_id, handler FROM consumer.inbox
               WHERE %s
               LIMIT ? FOR UPDATE SKIP LOCKED) old
       WHERE i.message_id = old.message_id AND i.handler = old.handler
      """
          .formatted(INBOX_EXPIRED);

  /**
   * Finished deliveries with their attempt history ({@code consumer.delivery_attempt}, which has no
   * foreign key) in one statement; the row count is the deliveries'. Operator actions stay: that
   * audit outlives the delivery.
   */
  private static final String PURGE_DELIVERIES =
      """
      WITH old AS (
        SELECT id FROM consumer.delivery
         WHERE %s
         LIMIT ? FOR UPDATE SKIP LOCKED),
      attempts AS (
        DELETE FROM consumer.delivery_attempt a USING old WHERE a.delivery_id = old.id)
      DELETE FROM consumer.delivery d
       USING old
       WHERE d.id = old.id
      """
          .formatted(DELIVERY_EXPIRED);

  private static final String PURGE_OUTBOX =
      """
      DELETE FROM consumer.outbox o
       USING (SELECT id FROM consumer.outbox
               WHERE %s
               LIMIT ? FOR UPDATE SKIP LOCKED) old
       WHERE o.id = old.id
      """
          .formatted(OUTBOX_EXPIRED);

  /** Binds the age once: the cut-off a purge of this moment would use. */
  private static final String CUTOFF_NOW = "SELECT " + CUTOFF;

  /** One table: what expires a row, and the statement that deletes a batch of them. */
  private record Table(String name, String rule, Duration age, String expired, String purge) {

    /** Binds the age twice: the cut-off, and the count of rows before it. */
    String countSql() {
      return "SELECT " + CUTOFF + ", count(*) FROM " + name + " WHERE " + expired;
    }
  }

  private final DataSource dataSource;
  private final RetentionSettings settings;
  private final List<Table> tables;
  private final PeriodicTask task;

  public RetentionPurger(
      DataSource dataSource, RetentionSettings settings, ConsumerMetrics metrics) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.tables =
        List.of(
            new Table(
                "consumer.inbox",
                "received_at older than consumer.inbox.retention="
                    + Durations.format(settings.inboxRetention()),
                settings.inboxRetention(),
                INBOX_EXPIRED,
                PURGE_INBOX),
            new Table(
                "consumer.delivery",
                "PUBLISHED, FAILED or ABANDONED, updated_at older than"
                    + " consumer.delivery.retention="
                    + Durations.format(settings.deliveryRetention()),
                settings.deliveryRetention(),
                DELIVERY_EXPIRED,
                PURGE_DELIVERIES),
            new Table(
                "consumer.outbox",
                "occurred_at older than "
                    + (settings.outboxRetention().isZero()
                        ? "now: consumer.outbox.retention=delete-immediately"
                        : "consumer.outbox.keep-days=" + settings.outboxRetention().toDays()),
                settings.outboxRetention(),
                OUTBOX_EXPIRED,
                PURGE_OUTBOX));
    this.task =
        PeriodicTask.named("herald-retention")
            .every(settings.purgeInterval())
            .stopWait(Duration.ofSeconds(10))
            .onFailure(() -> metrics.loopFailure("retention"))
            .build(this::purgeOnce);
  }

  public void start() {
    task.start();
  }

  /** Whether the purge thread is alive and a round started within {@code maxSilence}. */
  public boolean healthy(Duration maxSilence) {
    return task.healthy(maxSilence);
  }

  /** One purge round; returns the number of rows deleted. */
  public long purgeOnce() throws SQLException {
    return purgeAll().stream().mapToLong(ExpiredRows::rows).sum();
  }

  /** One purge round on the calling thread; per table, the cut-off and the rows it deleted. */
  public List<ExpiredRows> purgeAll() throws SQLException {
    List<ExpiredRows> purged = new ArrayList<>(tables.size());
    for (Table table : tables) {
      purged.add(purge(table));
    }
    return purged;
  }

  /**
   * What a purge round would delete now, per table, counted with the purge's own conditions;
   * deletes nothing.
   */
  public List<ExpiredRows> expired() throws SQLException {
    List<ExpiredRows> expired = new ArrayList<>(tables.size());
    try (Connection connection = dataSource.getConnection()) {
      for (Table table : tables) {
        try (PreparedStatement count = connection.prepareStatement(table.countSql())) {
          count.setLong(1, table.age().toMillis());
          count.setLong(2, table.age().toMillis());
          try (ResultSet row = count.executeQuery()) {
            row.next();
            expired.add(
                new ExpiredRows(
                    table.name(),
                    table.rule(),
                    row.getObject(1, OffsetDateTime.class).toInstant(),
                    row.getLong(2)));
          }
        }
      }
    }
    return expired;
  }

  private ExpiredRows purge(Table table) throws SQLException {
    OffsetDateTime cutoff;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement now = connection.prepareStatement(CUTOFF_NOW)) {
      now.setLong(1, table.age().toMillis());
      try (ResultSet row = now.executeQuery()) {
        row.next();
        cutoff = row.getObject(1, OffsetDateTime.class);
      }
    }
    // No cap on statements per round: a round ends on a short batch or when closing.
    long total =
        new BatchedDelete(
                dataSource,
                table.purge(),
                settings.purgeBatchSize(),
                Integer.MAX_VALUE,
                Duration.ZERO)
            .run(table.age().toMillis(), task::stopping, rows -> {});
    if (total > 0) {
      log.info("Purged {} rows older than {} from {}", total, table.age(), table.name());
    }
    return new ExpiredRows(table.name(), table.rule(), cutoff.toInstant(), total);
  }

  @Override
  public void close() {
    task.close();
  }
}
