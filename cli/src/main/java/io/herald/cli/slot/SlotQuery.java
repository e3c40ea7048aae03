package io.herald.cli.slot;

import io.herald.cli.CliDatabase;
import io.herald.cli.CliFailure;
import io.herald.relay.slot.ServerState;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads one slot from {@code pg_replication_slots} over one short-lived connection with the relay's
 * own database settings ({@link CliDatabase}, which also classifies the failures). Stateless and
 * thread-safe.
 */
final class SlotQuery {

  /** Readable by any role: pg_replication_slots is a public view. */
  static final String SLOT_SQL =
      "SELECT plugin, active, active_pid, confirmed_flush_lsn::text, restart_lsn::text,"
          + " wal_status,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint,"
          + " %s,"
          + " pg_walfile_name(pg_current_wal_lsn())"
          + " FROM pg_replication_slots WHERE slot_name = ?";

  /** The columns PostgreSQL 17 added; older servers answer nulls in their place. */
  private static final String SINCE_17 =
      "invalidation_reason, failover, synced,"
          + " coalesce(current_setting('synchronized_standby_slots', true), '')";

  private static final String BEFORE_17 = "NULL::text, NULL::boolean, NULL::boolean, NULL::text";

  private static final String RELAYS = "the relay's";

  private SlotQuery() {}

  static SlotStatus read(DatabaseConfig database, String slot, String dbName, long lagWarnBytes) {
    try (Connection connection = CliDatabase.open(database, doing(slot), RELAYS, 30);
        PreparedStatement statement =
            connection.prepareStatement(
                SLOT_SQL.formatted(
                    connection.getMetaData().getDatabaseMajorVersion() >= 17
                        ? SINCE_17
                        : BEFORE_17))) {
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
            lag != null && lag > lagWarnBytes,
            row.getString(9),
            nullableBoolean(row, 10),
            nullableBoolean(row, 11),
            row.getString(12),
            ServerState.timelineOf(row.getString(13)));
      }
    } catch (SQLException e) {
      throw failure(e, slot, database);
    }
  }

  static CliFailure failure(SQLException e, String slot, DatabaseConfig database) {
    return CliDatabase.failure(e, doing(slot), database, RELAYS);
  }

  private static String doing(String slot) {
    return "cannot read slot '" + slot + "'";
  }

  private static Long nullableLong(ResultSet row, int column) throws SQLException {
    long value = row.getLong(column);
    return row.wasNull() ? null : value;
  }

  private static Boolean nullableBoolean(ResultSet row, int column) throws SQLException {
    boolean value = row.getBoolean(column);
    return row.wasNull() ? null : value;
  }

  private static Integer nullableInt(ResultSet row, int column) throws SQLException {
    int value = row.getInt(column);
    return row.wasNull() ? null : value;
  }
}
