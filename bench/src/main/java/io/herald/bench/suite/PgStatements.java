package io.herald.bench.suite;

import io.herald.devstack.PostgresServer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Where the server's time goes during one scenario: {@code pg_stat_statements} (preloaded by the
 * stack when {@code --pg-statements} is given) reset before it, its costliest statements printed
 * after, over every database of the server. Execution time, not CPU, but on a CPU-bound box the two
 * move together; the walsender's decoding is not a statement and is not in it.
 */
final class PgStatements {

  /** Read through the {@code postgres} database, where the extension's view is created. */
  private static final String DATABASE = "postgres";

  private static final String TOP =
      """
      SELECT calls, total_exec_time, rows,
             left(regexp_replace(query, '\\s+', ' ', 'g'), ?) AS query,
             sum(total_exec_time) OVER () AS all_ms, sum(calls) OVER () AS all_calls
        FROM pg_stat_statements
       ORDER BY total_exec_time DESC
       LIMIT ?""";

  private static final int QUERY_WIDTH = 150;

  private PgStatements() {}

  /**
   * @throws SQLException naming the cause when the server did not preload the extension (only the
   *     embedded stack does, when asked)
   */
  static void reset(PostgresServer server) throws SQLException {
    try (Connection connection = server.dataSource(DATABASE).getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      statement.execute("SELECT pg_stat_statements_reset()");
    } catch (SQLException e) {
      throw new SQLException(
          "--pg-statements: pg_stat_statements is not usable on this server; only the embedded"
              + " stack preloads it (-Dherald.stack=embedded, the default)",
          e.getSQLState(),
          e);
    }
  }

  /** Prints the {@code limit} statements that took the most execution time since the reset. */
  static void print(PostgresServer server, int limit, PrintStream out) throws SQLException {
    try (Connection connection = server.dataSource(DATABASE).getConnection();
        PreparedStatement statement = connection.prepareStatement(TOP)) {
      statement.setInt(1, QUERY_WIDTH);
      statement.setInt(2, limit);
      try (ResultSet rows = statement.executeQuery()) {
        boolean first = true;
        while (rows.next()) {
          if (first) {
            out.printf(
                Locale.ROOT,
                "%n  pg_stat_statements: %.1f s of execution in %,d calls; the costliest:%n"
                    + "  %10s %10s %8s %10s  %s%n",
                rows.getDouble("all_ms") / 1000,
                rows.getLong("all_calls"),
                "calls",
                "total ms",
                "mean ms",
                "rows",
                "query");
            first = false;
          }
          long calls = rows.getLong("calls");
          double total = rows.getDouble("total_exec_time");
          out.printf(
              Locale.ROOT,
              "  %,10d %,10.0f %8.3f %,10d  %s%n",
              calls,
              total,
              calls == 0 ? 0 : total / calls,
              rows.getLong("rows"),
              rows.getString("query"));
        }
      }
    }
  }
}
