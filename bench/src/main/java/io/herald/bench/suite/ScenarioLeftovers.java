package io.herald.bench.suite;

import io.herald.devstack.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

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

  private ScenarioLeftovers() {}

  /** The names of the server's databases, templates left out. */
  static Set<String> databases(PostgresServer postgres) {
    try (Connection connection = postgres.dataSource("postgres").getConnection();
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
   * Drops the databases named, each with its replication slots and open sessions ({@link
   * PostgresServer#dropDatabase}), and says what it dropped.
   *
   * @param names databases a finished scenario created
   * @throws IllegalArgumentException if a name is not one the stack could have created
   * @throws IllegalStateException if a database cannot be dropped; the next scenario would measure
   *     beside its leftovers
   */
  static String drop(PostgresServer postgres, Set<String> names) {
    long start = System.nanoTime();
    int slots = 0;
    for (String database : new TreeSet<>(names)) {
      slots += postgres.dropDatabase(database);
    }
    return String.format(
        Locale.ROOT,
        "dropped its %d database(s), with %d replication slot(s), in %.1f s",
        names.size(),
        slots,
        (System.nanoTime() - start) / 1e9);
  }
}
