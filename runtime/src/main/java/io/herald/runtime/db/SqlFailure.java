package io.herald.runtime.db;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientException;

/**
 * What a {@link SQLException} means to the code that ran the statement: the one place every Herald
 * process asks. Decided by exception type and SQLState, never by message text, looking through the
 * cause chain.
 *
 * <p>The rule:
 *
 * <ul>
 *   <li>{@link #UNAVAILABLE}: the database cannot do the work now and may later. The driver or pool
 *       says so by type ({@link SQLTransientException} other than a rollback, such as HikariCP's
 *       connection timeout or a statement timeout; {@link SQLRecoverableException}), or the server
 *       by SQLState: class {@code 08} (connection), class {@code 53} (insufficient resources),
 *       {@code 57014} (statement timeout or cancel), {@code 57P01}/{@code 57P02}/{@code 57P03}/
 *       {@code 57P05} (shutdown, crash, starting up, idle session ended), {@code 58000}/{@code
 *       58030} (system and I/O error), {@code 25006} (read-only: a standby after a failover),
 *       {@code 40003} (completion unknown).
 *   <li>{@link #RETRY_TRANSACTION}: the transaction lost a race ({@code 40001} serialization
 *       failure, {@code 40P01} deadlock, or {@link SQLTransactionRollbackException}); running it
 *       again at once is correct.
 *   <li>{@link #PERMANENT}: everything else, a SQLException with no SQLState at all included.
 *       pgjdbc gives every server and I/O failure a SQLState and HikariCP reports its own by type,
 *       so an exception with neither is a program error (a closed statement, a bad parameter index)
 *       that a retry would repeat forever.
 * </ul>
 *
 * <p>Only the first two are retried, by loops that back off and are bounded (STYLE habit 9).
 */
public enum SqlFailure {
  /** The database is unreachable or not accepting work now; try again after a pause. */
  UNAVAILABLE,
  /** The transaction lost a race (serialization failure, deadlock); run it again at once. */
  RETRY_TRANSACTION,
  /** A property of the statement or the data: the same statement fails the same way. */
  PERMANENT;

  /** Whether a retry of the same work can succeed. */
  public boolean retriable() {
    return this != PERMANENT;
  }

  /** Classifies {@code failure}: the first cause in its chain that is not permanent decides. */
  public static SqlFailure classify(SQLException failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      SqlFailure byType = byType(t);
      if (byType != PERMANENT) {
        return byType;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        SqlFailure byState = bySqlState(sql.getSQLState());
        if (byState != PERMANENT) {
          return byState;
        }
      }
    }
    return PERMANENT;
  }

  /** Shorthand for {@code classify(failure).retriable()}. */
  public static boolean isRetriable(SQLException failure) {
    return classify(failure).retriable();
  }

  private static SqlFailure byType(Throwable t) {
    if (t instanceof SQLTransactionRollbackException) {
      return RETRY_TRANSACTION;
    }
    if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
      return UNAVAILABLE;
    }
    return PERMANENT;
  }

  private static SqlFailure bySqlState(String state) {
    if (state.equals("40001") || state.equals("40P01")) {
      return RETRY_TRANSACTION;
    }
    if (state.startsWith("08")
        || state.startsWith("53")
        || state.equals("57014")
        || state.equals("57P01")
        || state.equals("57P02")
        || state.equals("57P03")
        || state.equals("57P05")
        || state.equals("58000")
        || state.equals("58030")
        || state.equals("25006")
        || state.equals("40003")) {
      return UNAVAILABLE;
    }
    return PERMANENT;
  }
}
