package io.herald.consumer.delivery;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Runs work in one JDBC transaction: commit when it returns, roll back when it throws. */
public final class Transactions {

  /** Work on an open transaction. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private Transactions() {}

  public static <T> T inTransaction(DataSource dataSource, Work<T> work) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollback(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    }
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
