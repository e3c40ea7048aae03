package io.herald.runtime.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A retention purge as a bounded series of short DELETE statements: each statement deletes at most
 * {@code batchSize} rows in its own transaction (bounding lock time and WAL burst), and a run stops
 * after a short batch, after {@code maxBatches} statements, or when its owner is stopping.
 *
 * <p>The SQL takes two bind parameters: (1) the cutoff (an instant or an age, as the statement
 * expects it), (2) the row limit of one batch. Rows another purger holds should be skipped ({@code
 * FOR UPDATE SKIP LOCKED}) so instances can purge at once.
 *
 * <pre>{@code
 * BatchedDelete purge = new BatchedDelete(dataSource, PURGE_BATCH, 1000, 100, Duration.ofSeconds(30));
 * long deleted = purge.run(cutoff, task::stopping);
 * }</pre>
 *
 * <p>Immutable and thread-safe (each run uses its own connections).
 */
public final class BatchedDelete {

  private final DataSource dataSource;
  private final String sql;
  private final int batchSize;
  private final int maxBatches;
  private final Duration statementTimeout;

  /**
   * @param statementTimeout per statement; {@link Duration#ZERO} for none
   */
  public BatchedDelete(
      DataSource dataSource, String sql, int batchSize, int maxBatches, Duration statementTimeout) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.sql = Objects.requireNonNull(sql, "sql");
    if (batchSize < 1 || maxBatches < 1) {
      throw new IllegalArgumentException(
          "batchSize and maxBatches must be positive, were " + batchSize + " and " + maxBatches);
    }
    this.batchSize = batchSize;
    this.maxBatches = maxBatches;
    this.statementTimeout = Objects.requireNonNull(statementTimeout, "statementTimeout");
  }

  /** A listener told the rows each statement deleted (a metric), as they are deleted. */
  @FunctionalInterface
  public interface BatchListener {
    void deleted(int rows);
  }

  /**
   * Deletes in batches on the calling thread.
   *
   * @param cutoff the first bind parameter
   * @param stopping checked before each statement
   * @param listener told each statement's row count
   * @return the rows deleted by this run
   */
  public long run(Object cutoff, BooleanSupplier stopping, BatchListener listener)
      throws SQLException {
    long total = 0;
    for (int batch = 0; batch < maxBatches && !stopping.getAsBoolean(); batch++) {
      int deleted;
      try (Connection connection = dataSource.getConnection();
          PreparedStatement delete = connection.prepareStatement(sql)) {
        connection.setAutoCommit(true);
        delete.setQueryTimeout((int) statementTimeout.toSeconds());
        delete.setObject(1, cutoff);
        delete.setInt(2, batchSize);
        deleted = delete.executeUpdate();
      }
      total += deleted;
      listener.deleted(deleted);
      if (deleted < batchSize) {
        break;
      }
    }
    return total;
  }
}
