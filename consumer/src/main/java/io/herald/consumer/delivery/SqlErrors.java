package io.herald.consumer.delivery;

import java.sql.SQLException;
import java.sql.SQLTransientException;

/**
 * Classifies PostgreSQL failures once: transient ones (the database is unreachable, restarting, out
 * of resources, or a serialization/deadlock abort) are retried by the caller's loop; anything else
 * is a property of the data and retrying it would loop forever.
 */
public final class SqlErrors {

  private SqlErrors() {}

  public static boolean isTransient(SQLException e) {
    if (e instanceof SQLTransientException) {
      return true;
    }
    String state = e.getSQLState();
    if (state == null) {
      // No SQLState: the driver failed before the server answered (I/O, pool timeout).
      return true;
    }
    return state.startsWith("08") // connection exception
        || state.startsWith("40") // serialization failure, deadlock
        || state.startsWith("53") // insufficient resources
        || state.startsWith("57") // operator intervention: admin shutdown, crash shutdown
        || state.startsWith("58"); // system error (I/O)
  }
}
