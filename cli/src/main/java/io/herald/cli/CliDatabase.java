package io.herald.cli;

import io.herald.config.EffectiveConfig;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A process's database as the command reaches it: no pool, one short-lived connection per use, with
 * the process's own {@link DatabaseConfig} (URL, user, password, secret driver properties) and
 * bounded timeouts, and SQL failures mapped to exit codes in one place. Stateless and thread-safe.
 */
public final class CliDatabase {

  /** How long one statement may run before the command gives up (exit 3). */
  private static final int SOCKET_TIMEOUT_SECONDS = 60;

  /** A table the command expects does not exist: the schema was not migrated to this version. */
  private static final String UNDEFINED_TABLE = "42P01";

  private CliDatabase() {}

  /** A non-pooling data source on {@code database}; each connection is opened on demand. */
  public static DataSource dataSource(DatabaseConfig database) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setURL(database.jdbcUrl());
    source.setUser(database.user());
    if (database.password() != null) {
      source.setPassword(database.password());
    }
    int timeoutSeconds = (int) Math.max(1, database.connectTimeout().toSeconds());
    source.setConnectTimeout(timeoutSeconds);
    source.setLoginTimeout(timeoutSeconds);
    source.setSocketTimeout(SOCKET_TIMEOUT_SECONDS);
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

  /**
   * The failure of {@code doing} (what the command was doing, for the message): refused credentials
   * (SQLState class 28) or an unknown database (3D000) are configuration, exit 2; everything else
   * exits 3 with its SQLState.
   */
  public static CliFailure failure(SQLException e, String doing, DatabaseConfig database) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String what =
        "cannot "
            + doing
            + " at "
            + EffectiveConfig.maskEmbedded(database.jdbcUrl())
            + " as "
            + database.user()
            + " (SQLState "
            + (state.isEmpty() ? "none" : state)
            + ")";
    if (state.startsWith("28") || state.equals("3D000")) {
      return CliFailure.usage(what + ": check the database settings", e);
    }
    if (state.equals(UNDEFINED_TABLE)) {
      return CliFailure.usage(
          what + ": the schema is older than this command; run the process's migrations", e);
    }
    return CliFailure.unreachable(what, e);
  }
}
