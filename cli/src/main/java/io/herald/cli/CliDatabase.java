package io.herald.cli;

import io.herald.config.EffectiveConfig;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * One short-lived JDBC connection with a process's own database settings, and the one mapping of
 * its failures to exit codes: refused credentials (SQLState class 28) or an unknown database
 * (3D000) are configuration, exit 2; anything else (no connection, class 08, included) exits 3 with
 * its SQLState. No pool: a command opens one or two connections and exits. Stateless.
 */
public final class CliDatabase {

  private CliDatabase() {}

  /**
   * Opens a connection as {@code database.user()}.
   *
   * @param doing what the connection is for, starting a failure's message ("cannot read slot 'x'")
   * @param whose whose settings these are, for the message ("the relay's", "the writer's")
   * @param socketTimeoutSeconds how long one statement may wait for the server; 0 for no limit
   * @throws CliFailure on any failure, with the exit code above
   */
  public static Connection open(
      DatabaseConfig database, String doing, String whose, int socketTimeoutSeconds) {
    Properties properties = new Properties();
    properties.putAll(database.driverSecrets());
    properties.setProperty("user", database.user());
    if (database.password() != null) {
      properties.setProperty("password", database.password());
    }
    long timeoutSeconds = Math.max(1, database.connectTimeout().toSeconds());
    properties.setProperty("connectTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("loginTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
    properties.setProperty("ApplicationName", "herald-cli");
    try {
      return DriverManager.getConnection(database.jdbcUrl(), properties);
    } catch (SQLException e) {
      throw failure(e, doing, database, whose);
    }
  }

  /**
   * The failure of {@code doing} ("cannot read slot 'x'") against {@code database}, classified as
   * above.
   */
  public static CliFailure failure(
      SQLException e, String doing, DatabaseConfig database, String whose) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String what =
        doing
            + " at "
            + EffectiveConfig.maskEmbedded(database.jdbcUrl())
            + " as "
            + database.user()
            + " (SQLState "
            + (state.isEmpty() ? "none" : state)
            + ")";
    if (state.startsWith("28") || state.equals("3D000")) {
      return CliFailure.usage(what + ": check " + whose + " database settings", e);
    }
    return CliFailure.unreachable(what, e);
  }
}
