package io.herald.cli;

import io.herald.config.EffectiveConfig;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A process's database as the command reaches it: no pool, one short-lived connection per use, with
 * the process's own {@link DatabaseConfig} (URL, user, password, secret driver properties) and
 * bounded timeouts, and the one mapping of SQL failures to exit codes: refused credentials
 * (SQLState class 28) or an unknown database (3D000) are configuration, exit 2, and so is a missing
 * table (42P01: the schema is older than the command); anything else (no connection, class 08,
 * included) exits 3 with its SQLState. Stateless and thread-safe.
 */
public final class CliDatabase {

  /** How long one statement may run, by default, before the command gives up (exit 3). */
  private static final int SOCKET_TIMEOUT_SECONDS = 60;

  /** A table the command expects does not exist: the schema was not migrated to this version. */
  private static final String UNDEFINED_TABLE = "42P01";

  private CliDatabase() {}

  /** A non-pooling data source on {@code database}; each connection is opened on demand. */
  public static DataSource dataSource(DatabaseConfig database) {
    return source(database, SOCKET_TIMEOUT_SECONDS);
  }

  /**
   * Opens a connection as {@code database.user()}.
   *
   * @param doing what the connection is for, starting a failure's message ("cannot read slot 'x'")
   * @param whose whose settings these are, for the message ("the relay's", "the writer's")
   * @param socketTimeoutSeconds how long one statement may wait for the server; 0 for no limit (the
   *     audit's long joins)
   * @throws CliFailure on any failure, with the exit code above
   */
  public static Connection open(
      DatabaseConfig database, String doing, String whose, int socketTimeoutSeconds) {
    try {
      return source(database, socketTimeoutSeconds).getConnection();
    } catch (SQLException e) {
      throw failure(e, doing, database, whose);
    }
  }

  /** The failure of {@code doing} ("read the replays"), as "cannot ..." with the mapping above. */
  public static CliFailure failure(SQLException e, String doing, DatabaseConfig database) {
    return failure(e, "cannot " + doing, database, "the");
  }

  /**
   * The failure of {@code doing} ("cannot read slot 'x'") against {@code database}, classified as
   * above; {@code whose} names the settings to check ("the relay's").
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
    if (state.equals(UNDEFINED_TABLE)) {
      return CliFailure.usage(
          what + ": the schema is older than this command; run the process's migrations", e);
    }
    return CliFailure.unreachable(what, e);
  }

  private static PGSimpleDataSource source(DatabaseConfig database, int socketTimeoutSeconds) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setURL(database.jdbcUrl());
    source.setUser(database.user());
    if (database.password() != null) {
      source.setPassword(database.password());
    }
    int timeoutSeconds = (int) Math.max(1, database.connectTimeout().toSeconds());
    source.setConnectTimeout(timeoutSeconds);
    source.setLoginTimeout(timeoutSeconds);
    source.setSocketTimeout(socketTimeoutSeconds);
    source.setApplicationName("herald-cli");
    for (Map.Entry<String, String> secret : database.driverSecrets().entrySet()) {
      try {
        source.setProperty(secret.getKey(), secret.getValue());
      } catch (SQLException e) {
        throw CliFailure.usage(
            "the driver does not know the property '"
                + secret.getKey()
                + "' configured for "
                + EffectiveConfig.maskEmbedded(database.jdbcUrl()),
            e);
      }
    }
    return source;
  }
}
