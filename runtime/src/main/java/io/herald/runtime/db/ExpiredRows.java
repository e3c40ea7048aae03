package io.herald.runtime.db;

import java.time.Instant;
import java.util.Objects;

/**
 * What one retention purge finds, or deletes, in one table: the rows older than its cut-off. The
 * retention purgers report it, and {@code herald purge} prints it. Immutable.
 *
 * @param table the table, schema-qualified ({@code consumer.inbox})
 * @param rule what makes a row expired, naming the setting and its value ({@code received_at older
 *     than consumer.inbox.retention=14d})
 * @param cutoff rows whose age column is before this instant are expired
 * @param rows how many rows: counted by a dry run, deleted by a purge
 */
public record ExpiredRows(String table, String rule, Instant cutoff, long rows) {

  public ExpiredRows {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(cutoff, "cutoff");
    if (rows < 0) {
      throw new IllegalArgumentException("rows must not be negative: " + rows);
    }
  }
}
