package io.herald.writer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The retention purge's counters, per purged table: {@code <prefix>.purged} (rows deleted after the
 * retention window) and {@code <prefix>.purge.failures} (runs that failed, each logged with its
 * cause), with prefix {@link #OUTBOX} or {@link #INBOX}. Registered when the table's purge is
 * created, so they show 0 rather than nothing, and only for a table that is purged. Thread-safe.
 */
public final class RetentionMetrics {

  /** Prefix of the {@code writer.outbox} purge's meters. */
  public static final String OUTBOX = "herald.writer.outbox";

  /** Prefix of the {@code writer.inbox} purge's meters (the status view's inbox). */
  public static final String INBOX = "herald.writer.status.inbox";

  private final Counter purged;
  private final Counter failures;

  /**
   * @param prefix {@link #OUTBOX} or {@link #INBOX}
   * @param table the purged table, for the meters' descriptions
   */
  public RetentionMetrics(MeterRegistry registry, String prefix, String table) {
    purged =
        Counter.builder(prefix + ".purged")
            .description(table + " rows deleted after the retention window")
            .register(registry);
    failures =
        Counter.builder(prefix + ".purge.failures")
            .description(table + " purge runs that failed (logged with their cause)")
            .register(registry);
  }

  /** {@code rows} deleted by one statement. */
  public void purged(int rows) {
    purged.increment(rows);
  }

  /** One run that failed. */
  public void failure() {
    failures.increment();
  }
}
