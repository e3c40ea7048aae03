package io.herald.runtime.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.postgresql.PGStatement;

/**
 * Statements PostgreSQL plans anew at every execution, with that execution's parameters.
 *
 * <p>pgjdbc prepares a statement on the server after five executions on one connection, and the
 * server then may plan it once for all later parameters (a generic plan). A pooled connection keeps
 * that plan as long as it lives: made while a table was small, it scans the table whole ever after.
 * A statement that joins a growing table through arrays of ids ({@code FROM unnest(?::uuid[]) ...
 * WHERE t.id = u.id}) is the case: its generic plan on the consumer's first, empty deliveries was a
 * hash join over a full scan, 43 ms a call at 80,000 rows against 1 ms through the primary key
 * (docs/benchmarks-history.md, "B5 warm, the generic-plan trap and the offsets"). Planning such a
 * statement costs far less than one scan; single-row statements by key plan the same either way and
 * keep their generic plans.
 */
public final class FreshPlans {

  private FreshPlans() {}

  /**
   * {@code sql} prepared on {@code connection} so that it is never a server-side prepared statement
   * (pgjdbc's {@code prepareThreshold} 0): each execution is planned with its parameters. The
   * caller closes it.
   */
  public static PreparedStatement prepare(Connection connection, String sql) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      statement.unwrap(PGStatement.class).setPrepareThreshold(0);
      return statement;
    } catch (SQLException | RuntimeException e) {
      try {
        statement.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }
}
