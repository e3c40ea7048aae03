package io.herald.relay.slot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.relay.offsets.Lsn;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Reads the replication slot and the server position from PostgreSQL.
 *
 * <p>The slot row is read as JSON ({@code to_jsonb}) so that columns added in later PostgreSQL
 * versions ({@code invalidation_reason} in 17, {@code conflicting} in 16) are used when present and
 * missing ones do not break older servers. Thread-safe: each call borrows its own connection.
 */
public final class PostgresSlots {

  private static final String SLOT_SQL =
      "SELECT to_jsonb(s)::text FROM pg_replication_slots s WHERE s.slot_name = ?";

  private static final String SERVER_SQL =
      "SELECT (SELECT system_identifier::text FROM pg_control_system()),"
          + " current_database(), pg_current_wal_lsn()::text,"
          + " pg_walfile_name(pg_current_wal_lsn())";

  private static final String LAG_SQL =
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
          + " FROM pg_replication_slots WHERE slot_name = ?";

  private static final String REGISTERED_SQL =
      "SELECT consistent_point::text FROM herald_relay.capture_slot WHERE slot_name = ?";

  // The signal is sent from the select list, which PostgreSQL evaluates only for rows that passed
  // the WHERE clause; as a WHERE condition it could be evaluated before the slot name test and end
  // the readers of other slots.
  private static final String END_READER_SQL =
      "SELECT active_pid, pg_terminate_backend(active_pid) FROM pg_replication_slots"
          + " WHERE slot_name = ? AND active_pid IS NOT NULL";

  private final DataSource dataSource;
  private final String slotName;
  private final ObjectMapper mapper;

  public PostgresSlots(DataSource dataSource, String slotName, ObjectMapper mapper) {
    this.dataSource = dataSource;
    this.slotName = slotName;
    this.mapper = mapper;
  }

  public Optional<SlotState> slot() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SLOT_SQL)) {
      statement.setString(1, slotName);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return Optional.empty();
        }
        return Optional.of(parse(mapper.readTree(rows.getString(1))));
      }
    } catch (IOException e) {
      throw new SQLException("Unreadable pg_replication_slots row for slot '" + slotName + "'", e);
    }
  }

  public ServerState server() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SERVER_SQL);
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return new ServerState(
          rows.getString(1),
          rows.getString(2),
          Lsn.parse(rows.getString(3)),
          ServerState.timelineOf(rows.getString(4)));
    }
  }

  /** Bytes of WAL the slot holds back; empty when the slot does not exist. */
  public Optional<Long> lagBytes() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(LAG_SQL)) {
      statement.setString(1, slotName);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? Optional.of(rows.getLong(1)) : Optional.empty();
      }
    }
  }

  /**
   * The slot's consistent point as the schema set-up registered it when it created the slot; empty
   * when it was not registered (a slot created by hand).
   */
  public Optional<Lsn> registeredCreation() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(REGISTERED_SQL)) {
      statement.setString(1, slotName);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? Optional.of(Lsn.parse(rows.getString(1))) : Optional.empty();
      }
    }
  }

  /**
   * Ends the session that reads the slot, if one does, and returns its process id (empty when no
   * session was signalled). For the leader before it streams: holding the lock, any reader is a
   * former leader that has not let go (frozen, or cut off from its lock session), whose walsender
   * would otherwise keep the slot until {@code wal_sender_timeout}. Needs the privilege to signal
   * that session (the same role, or {@code pg_signal_backend}).
   */
  public Optional<Integer> endReader() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(END_READER_SQL)) {
      statement.setString(1, slotName);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() && rows.getBoolean(2) ? Optional.of(rows.getInt(1)) : Optional.empty();
      }
    }
  }

  private static SlotState parse(JsonNode row) {
    Optional<String> invalidation = text(row, "invalidation_reason");
    if (invalidation.isEmpty() && text(row, "wal_status").filter("lost"::equals).isPresent()) {
      invalidation = Optional.of("wal_status=lost");
    }
    if (invalidation.isEmpty() && row.path("conflicting").asBoolean(false)) {
      invalidation = Optional.of("conflicting with recovery");
    }
    return new SlotState(
        row.path("slot_name").asText(),
        row.path("plugin").asText(null),
        row.path("slot_type").asText(),
        row.path("database").asText(null),
        row.path("active").asBoolean(false),
        text(row, "confirmed_flush_lsn").map(Lsn::parse),
        text(row, "restart_lsn").map(Lsn::parse),
        invalidation);
  }

  private static Optional<String> text(JsonNode row, String field) {
    JsonNode value = row.get(field);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
  }
}
