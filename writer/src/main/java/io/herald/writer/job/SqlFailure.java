package io.herald.writer.job;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * The one place that decides what a {@link SQLException} means for the writer. Decided by SQLState
 * class and exception type, never by message text.
 */
enum SqlFailure {
  /** The database is unreachable or not accepting work now; the client should retry later. */
  UNAVAILABLE,
  /** The transaction lost a race (serialization failure, deadlock); run it again at once. */
  RETRY_TRANSACTION,
  /** A bug or a schema mismatch: retrying the same statement gives the same error. */
  PERMANENT;

  static SqlFailure classify(SQLException failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException || t instanceof SQLRecoverableException) {
        return UNAVAILABLE; // HikariCP: no connection within connectionTimeout
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

  private static SqlFailure bySqlState(String state) {
    if (state.startsWith("08") // connection exception: refused, broken, lost
        || state.startsWith("53") // insufficient resources: too many connections, disk full
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P02") // crash_shutdown
        || state.equals("57P03") // cannot_connect_now: starting up or in recovery
        || state.equals(
            "25006")) { // read_only_sql_transaction: we reached a standby after failover
      return UNAVAILABLE;
    }
    if (state.equals("40001") || state.equals("40P01")) {
      return RETRY_TRANSACTION;
    }
    return PERMANENT;
  }
}
