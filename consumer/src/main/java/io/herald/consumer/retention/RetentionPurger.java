package io.herald.consumer.retention;

import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.runtime.db.BatchedDelete;
import io.herald.runtime.task.PeriodicTask;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old inbox rows, finished deliveries (with their attempts) and status events in bounded
 * batches. Safe on every instance at once: each batch locks its rows with {@code SKIP LOCKED}.
 *
 * <p>Bounded: each table is purged in batches of {@code batchSize} until a batch comes back short
 * or the purger is closing. Lifecycle ({@link PeriodicTask}): {@link #start()} once, {@link
 * #close()} once. Thread-safe.
 */
public final class RetentionPurger implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetentionPurger.class);

  private static final String PURGE_INBOX =
      """
      DELETE FROM consumer.inbox i
       USING (SELECT message_id, handler FROM consumer.inbox
               WHERE received_at < now() - ? * interval '1 millisecond'
               LIMIT ? FOR UPDATE SKIP LOCKED) old
       WHERE i.message_id = old.message_id AND i.handler = old.handler
      """;

  /**
   * Finished deliveries with their attempt history ({@code consumer.delivery_attempt}, which has no
   * foreign key) in one statement; the row count is the deliveries'. Operator actions stay: that
   * audit outlives the delivery.
   */
  private static final String PURGE_DELIVERIES =
      """
      WITH old AS (
        SELECT id FROM consumer.delivery
         WHERE state IN ('PUBLISHED', 'FAILED', 'ABANDONED')
           AND updated_at < now() - ? * interval '1 millisecond'
         LIMIT ? FOR UPDATE SKIP LOCKED),
      attempts AS (
        DELETE FROM consumer.delivery_attempt a USING old WHERE a.delivery_id = old.id)
      DELETE FROM consumer.delivery d
       USING old
       WHERE d.id = old.id
      """;

  private static final String PURGE_OUTBOX =
      """
      DELETE FROM consumer.outbox o
       USING (SELECT id FROM consumer.outbox
               WHERE occurred_at < now() - ? * interval '1 millisecond'
               LIMIT ? FOR UPDATE SKIP LOCKED) old
       WHERE o.id = old.id
      """;

  private final DataSource dataSource;
  private final RetentionSettings settings;
  private final PeriodicTask task;

  public RetentionPurger(
      DataSource dataSource, RetentionSettings settings, ConsumerMetrics metrics) {
    this.dataSource = dataSource;
    this.settings = settings;
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
    long deleted = 0;
    deleted += purge(PURGE_INBOX, settings.inboxRetention(), "inbox");
    deleted += purge(PURGE_DELIVERIES, settings.deliveryRetention(), "delivery");
    deleted += purge(PURGE_OUTBOX, settings.outboxRetention(), "outbox");
    return deleted;
  }

  private long purge(String sql, Duration age, String table) throws SQLException {
    // No cap on statements per round: a round ends on a short batch or when closing.
    long total =
        new BatchedDelete(
                dataSource, sql, settings.purgeBatchSize(), Integer.MAX_VALUE, Duration.ZERO)
            .run(age.toMillis(), task::stopping, rows -> {});
    if (total > 0) {
      log.info("Purged {} rows older than {} from consumer.{}", total, age, table);
    }
    return total;
  }

  @Override
  public void close() {
    task.close();
  }
}
