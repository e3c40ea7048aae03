package io.herald.bench.suite;

import io.herald.devstack.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.awaitility.Awaitility;

/**
 * Drops what a finished scenario leaves on the run's one PostgreSQL: the databases it created and
 * the replication slots in them. Called after each scenario, when none of its processes runs.
 *
 * <p>Why: a scenario leaves millions of freshly inserted or deleted rows behind (B1's and B2's
 * backlogs, B3's and B4's intents), and autovacuum, throttled by its cost delay, works through them
 * for minutes in whatever runs next, on the cores it shares. In the full run of 2026-12-07 B5, run
 * after the four scenarios' leftovers, found PostgreSQL spending 2.07 ms of CPU per publication
 * (0.30 in B5 run after B4 alone) and a sustainable rate of 882 publications/s against 2,550
 * (docs/benchmarks-history.md, session 38). A dropped database leaves autovacuum nothing to do, and
 * its slots no longer hold WAL.
 *
 * <p>Not thread-safe; the suite runs one scenario at a time.
 */
final class ScenarioLeftovers {

  private static final String DATABASES =
      "SELECT datname FROM pg_database WHERE NOT datistemplate ORDER BY datname";

  // A slot in use cannot be dropped: end its reader's session first.
  private static final String TERMINATE_SLOT_READERS =
      "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
          + " WHERE database = ? AND active_pid IS NOT NULL";

  private static final String ACTIVE_SLOTS =
      "SELECT count(*) FROM pg_replication_slots WHERE database = ? AND active";

  private static final String SLOTS =
      "SELECT count(*) FROM pg_replication_slots WHERE database = ?";

  /** A terminated walsender releases its slot within milliseconds; this bounds a stuck one. */
  private static final Duration SLOT_RELEASE = Duration.ofSeconds(15);

  private ScenarioLeftovers() {}

  /** The names of the server's databases, templates left out. */
  static Set<String> databases(PostgresServer postgres) {
    try (Connection connection = connect(postgres);
        PreparedStatement statement = connection.prepareStatement(DATABASES);
        ResultSet rows = statement.executeQuery()) {
      Set<String> names = new TreeSet<>();
      while (rows.next()) {
        names.add(rows.getString(1));
      }
      return names;
    } catch (SQLException e) {
      throw new IllegalStateException(
          "listing the databases of "
              + postgres.jdbcUrl("postgres")
              + " failed, SQLState "
              + e.getSQLState(),
          e);
    }
  }

  /**
   * Drops the databases named, each with its replication slots (PostgreSQL drops a database's
   * inactive logical slots with it; their readers are ended first), and says what it dropped.
   *
   * @param names databases a finished scenario created, plain identifiers as the stack creates them
   * @throws IllegalArgumentException if a name is not one the stack could have created
   * @throws IllegalStateException if a database cannot be dropped; the next scenario would measure
   *     beside its leftovers
   */
  static String drop(PostgresServer postgres, Set<String> names) {
    for (String name : names) {
      if (!PostgresServer.DATABASE_NAME.matcher(name).matches() || name.equals("postgres")) {
        throw new IllegalArgumentException(
            "not a database a scenario created: '"
                + name
                + "' ("
                + PostgresServer.DATABASE_NAME
                + ")");
      }
    }
    long start = System.nanoTime();
    int slots = 0;
    List<String> dropped = new ArrayList<>();
    try (Connection connection = connect(postgres)) {
      for (String database : new TreeSet<>(names)) {
        slots += count(connection, SLOTS, database);
        releaseSlots(connection, database);
        try (Statement statement = connection.createStatement()) {
          // Identifiers cannot be bind parameters; the name matched DATABASE_NAME above. FORCE
          // ends the sessions a finished scenario's pools may still hold open.
          statement.execute("DROP DATABASE IF EXISTS \"" + database + "\" WITH (FORCE)");
        }
        dropped.add(database);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "dropping the databases "
              + names
              + " on "
              + postgres.jdbcUrl("postgres")
              + " failed after "
              + dropped
              + ", SQLState "
              + e.getSQLState(),
          e);
    }
    return String.format(
        Locale.ROOT,
        "dropped its %d database(s), with %d replication slot(s), in %.1f s",
        dropped.size(),
        slots,
        (System.nanoTime() - start) / 1e9);
  }

  private static Connection connect(PostgresServer postgres) throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl("postgres"), postgres.user(), postgres.password());
  }

  private static void releaseSlots(Connection connection, String database) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(TERMINATE_SLOT_READERS)) {
      statement.setString(1, database);
      statement.executeQuery().close();
    }
    Awaitility.await("the slots of database " + database + " released by their readers")
        .atMost(SLOT_RELEASE)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> count(connection, ACTIVE_SLOTS, database) == 0);
  }

  private static int count(Connection connection, String sql, String database) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, database);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }
}
