package io.herald.runtime.db;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs work in one JDBC transaction: commit when it returns, roll back when it throws. The one
 * transaction helper of every Herald process. Thread-safe (holds no state).
 *
 * <pre>{@code
 * List<Result> results = Transactions.inTransaction(pool, connection -> store(connection, batch));
 * }</pre>
 */
public final class Transactions {

  /** Work on an open transaction. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private Transactions() {}

  /**
   * Runs {@code work} on a pooled connection in one transaction.
   *
   * @throws SQLException from the work or the commit, after the rollback (a failed rollback is
   *     attached as suppressed); a connection lost inside a batch statement is reported as SQLState
   *     {@code 08006} (see {@link #connectionLostInBatch})
   */
  public static <T> T inTransaction(DataSource dataSource, Work<T> work) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      T result;
      try {
        result = work.run(connection);
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        rollback(connection, e);
        throw e;
      } catch (AssertionError e) {
        SQLException lost = connectionLostInBatch(e, connection);
        rollback(connection, lost);
        throw lost;
      }
      // Only after success: on a failure the pool resets the connection it gets back, and a
      // restore on a broken connection would hide the diagnosis.
      connection.setAutoCommit(autoCommit);
      return result;
    }
  }

  /**
   * pgjdbc 42.7 reports a connection that breaks during {@code executeBatch} as an {@link
   * AssertionError} ("getAutoCommit() should not throw", with "This connection has been closed" as
   * a suppressed exception). That is an unavailable database, not a bug: when the connection is
   * indeed no longer valid, it becomes a connection-failure SQLException (SQLState 08006), so it is
   * classified like every other one. Any other AssertionError is rethrown.
   */
  private static SQLException connectionLostInBatch(AssertionError error, Connection connection) {
    boolean valid;
    try {
      valid = connection.isValid(1);
    } catch (SQLException e) {
      valid = false;
    }
    if (valid) {
      throw error;
    }
    return new SQLException("connection lost during a batch statement", "08006", error);
  }

  private static void rollback(Connection connection, Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      // The original failure is the diagnosis; the rollback failure travels with it.
      cause.addSuppressed(rollbackFailure);
    }
  }
}
