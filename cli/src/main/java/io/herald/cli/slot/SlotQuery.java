package io.herald.cli.slot;

import io.herald.cli.CliFailure;
import io.herald.config.EffectiveConfig;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Reads one slot from {@code pg_replication_slots} over one short-lived connection with the relay's
 * own database settings. Failures become {@link CliFailure}: no connection (SQLState class 08)
 * exits 3; refused credentials (28) or an unknown database (3D000) are configuration, exit 2; any
 * other SQL failure exits 3 with its SQLState. Stateless and thread-safe.
 */
final class SlotQuery {

  /** Readable by any role: pg_replication_slots is a public view. */
  static final String SLOT_SQL =
      "SELECT plugin, active, active_pid, confirmed_flush_lsn::text, restart_lsn::text,"
          + " wal_status,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
          + " FROM pg_replication_slots WHERE slot_name = ?";

  private SlotQuery() {}

  static SlotStatus read(DatabaseConfig database, String slot, String dbName, long lagWarnBytes) {
    Properties properties = new Properties();
    properties.putAll(database.driverSecrets());
    properties.setProperty("user", database.user());
    if (database.password() != null) {
      properties.setProperty("password", database.password());
    }
    long timeoutSeconds = Math.max(1, database.connectTimeout().toSeconds());
    properties.setProperty("connectTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("loginTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("socketTimeout", "30");
    properties.setProperty("ApplicationName", "herald-cli");
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), properties);
        PreparedStatement statement = connection.prepareStatement(SLOT_SQL)) {
      statement.setString(1, slot);
      try (ResultSet row = statement.executeQuery()) {
        if (!row.next()) {
          return SlotStatus.missing(slot, dbName, lagWarnBytes);
        }
        Long lag = nullableLong(row, 8);
        return new SlotStatus(
            slot,
            dbName,
            true,
            row.getString(1),
            row.getBoolean(2),
            nullableInt(row, 3),
            row.getString(4),
            row.getString(5),
            row.getString(6),
            nullableLong(row, 7),
            lag,
            lagWarnBytes,
            lag != null && lag > lagWarnBytes);
      }
    } catch (SQLException e) {
      throw failure(e, slot, database);
    }
  }

  static CliFailure failure(SQLException e, String slot, DatabaseConfig database) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String what =
        "cannot read slot '"
            + slot
            + "' at "
            + EffectiveConfig.maskEmbedded(database.jdbcUrl())
            + " as "
            + database.user()
            + " (SQLState "
            + (state.isEmpty() ? "none" : state)
            + ")";
    if (state.startsWith("28") || state.equals("3D000")) {
      return CliFailure.usage(what + ": check the relay's database settings", e);
    }
    return CliFailure.unreachable(what, e);
  }

  private static Long nullableLong(ResultSet row, int column) throws SQLException {
    long value = row.getLong(column);
    return row.wasNull() ? null : value;
  }

  private static Integer nullableInt(ResultSet row, int column) throws SQLException {
    int value = row.getInt(column);
    return row.wasNull() ? null : value;
  }
}
