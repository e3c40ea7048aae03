package io.herald.consumer.retention;

import io.herald.consumer.ops.ConsumerMetrics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old inbox rows, finished deliveries and status events in bounded batches. Safe on every
 * instance at once: each batch locks its rows with {@code SKIP LOCKED}.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once. Thread-safe.
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

  private static final String PURGE_DELIVERIES =
      """
      DELETE FROM consumer.delivery d
       USING (SELECT id FROM consumer.delivery
               WHERE state IN ('PUBLISHED', 'FAILED', 'ABANDONED')
                 AND updated_at < now() - ? * interval '1 millisecond'
               LIMIT ? FOR UPDATE SKIP LOCKED) old
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
  private final ConsumerMetrics metrics;
  private final Object signal = new Object();
  private volatile boolean running;
  private volatile boolean closed;
  private Thread thread;

  public RetentionPurger(
      DataSource dataSource, RetentionSettings settings, ConsumerMetrics metrics) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.metrics = metrics;
  }

  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("Purger already started");
    }
    running = true;
    thread = Thread.ofPlatform().name("herald-retention").daemon(true).start(this::loop);
  }

  private void loop() {
    while (running) {
      try {
        purgeOnce();
      } catch (SQLException | RuntimeException e) {
        log.error("Retention purge failed; next round in {}", settings.interval(), e);
        metrics.loopFailure("retention");
      }
      synchronized (signal) {
        if (running) {
          try {
            signal.wait(settings.interval().toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }
  }

  /** One purge round; returns the number of rows deleted. */
  public long purgeOnce() throws SQLException {
    long deleted = 0;
    deleted += purge(PURGE_INBOX, settings.inbox(), "inbox");
    deleted += purge(PURGE_DELIVERIES, settings.finishedDeliveries(), "delivery");
    deleted += purge(PURGE_OUTBOX, settings.outbox(), "outbox");
    return deleted;
  }

  private long purge(String sql, Duration age, String table) throws SQLException {
    long total = 0;
    int deleted;
    do {
      try (Connection connection = dataSource.getConnection();
          PreparedStatement delete = connection.prepareStatement(sql)) {
        delete.setLong(1, age.toMillis());
        delete.setInt(2, settings.batchSize());
        deleted = delete.executeUpdate();
      }
      total += deleted;
    } while (deleted == settings.batchSize() && !closed);
    if (total > 0) {
      log.info("Purged {} rows older than {} from consumer.{}", total, age, table);
    }
    return total;
  }

  @Override
  public void close() {
    Thread current;
    synchronized (this) {
      running = false;
      closed = true;
      current = thread;
    }
    synchronized (signal) {
      signal.notifyAll();
    }
    if (current != null) {
      try {
        current.join(Duration.ofSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
