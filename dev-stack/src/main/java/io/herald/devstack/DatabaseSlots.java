package io.herald.devstack;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Ends what holds one database on a server: its replication slots (a slot in use cannot be dropped,
 * so its reader's session is ended first) and, for {@link PostgresServer#dropDatabase}, the
 * database itself. One place for a test class's end ({@link ClassStackContext}) and a benchmark's.
 */
final class DatabaseSlots {

  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private static final String TERMINATE_SLOT_READERS =
      "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
          + " WHERE database = ? AND active_pid IS NOT NULL";
  private static final String DROP_INACTIVE_SLOTS =
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
          + " WHERE database = ? AND NOT active";
  private static final String COUNT_SLOTS =
      "SELECT count(*) FROM pg_replication_slots WHERE database = ?";

  private DatabaseSlots() {}

  /**
   * Drops every replication slot of {@code database}, ending its readers first; returns how many
   * there were.
   *
   * @throws IllegalStateException if a slot is still active after 15 s: its reader keeps coming
   *     back
   */
  static int drop(Connection connection, String database)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    int before = count(connection, database);
    while (true) {
      execute(connection, TERMINATE_SLOT_READERS, database);
      execute(connection, DROP_INACTIVE_SLOTS, database);
      int left = count(connection, database);
      if (left == 0) {
        return before;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            left
                + " replication slot(s) of database "
                + database
                + " still active after "
                + TIMEOUT
                + "; a reader is still running");
      }
      // A terminated walsender releases its slot asynchronously, within milliseconds.
      Thread.sleep(50);
    }
  }

  /**
   * Drops {@code database} with its slots; FORCE ends the sessions still open on it. Returns how
   * many slots it had.
   */
  static int dropDatabase(Connection connection, String database)
      throws SQLException, InterruptedException {
    int slots = drop(connection, database);
    try (Statement statement = connection.createStatement()) {
      // Identifiers cannot be bind parameters; the caller checked the name.
      statement.execute("DROP DATABASE IF EXISTS \"" + database + "\" WITH (FORCE)");
    }
    return slots;
  }

  private static void execute(Connection connection, String sql, String database)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, database);
      statement.executeQuery().close();
    }
  }

  private static int count(Connection connection, String database) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(COUNT_SLOTS)) {
      statement.setString(1, database);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }
}
