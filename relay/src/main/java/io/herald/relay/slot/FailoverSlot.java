package io.herald.relay.slot;

import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Keeps the capture slot a failover slot (PostgreSQL 17) and reads whether a failover would keep
 * the stream whole ({@code relay.slot.failover}).
 *
 * <p>A slot with {@code failover = true} is copied to a physical standby that has {@code
 * sync_replication_slots = on}, so the promoted standby holds the slot and the relay streams on
 * from it. That copy alone does not make a failover safe: the primary sends logical changes as soon
 * as they are flushed locally, so events for commits the standby never received can already be in
 * Kafka when the primary dies (phantom events: published for rows the new primary does not have).
 * PostgreSQL's {@code synchronized_standby_slots} on the primary holds logical walsenders back
 * until the named physical slots have received the WAL; the relay reports whether it is set and
 * each slot it names is active ({@link Readiness#ready()}). Thread-safe: each call opens its own
 * connection.
 */
public final class FailoverSlot {

  /** PostgreSQL 17, the first with failover slots. */
  public static final int MINIMUM_SERVER_VERSION = 170000;

  private static final String READINESS_SQL =
      "SELECT current_setting('server_version_num')::int,"
          + " (SELECT (to_jsonb(s) ->> 'failover')::boolean FROM pg_replication_slots s"
          + "   WHERE s.slot_name = ?),"
          + " coalesce(current_setting('synchronized_standby_slots', true), ''),"
          + " (SELECT string_agg(p.slot_name, ',' ORDER BY p.slot_name) FROM pg_replication_slots p"
          + "   WHERE p.slot_type = 'physical' AND p.active)";

  private final DataSource pool;
  private final DatabaseConfig database;
  private final String slotName;

  /**
   * @param pool the relay's own connections to the captured database
   * @param database the same database, for the replication connection that alters the slot
   */
  public FailoverSlot(DataSource pool, DatabaseConfig database, String slotName) {
    this.pool = pool;
    this.database = database;
    this.slotName = slotName;
  }

  /**
   * How the slot stands for a failover.
   *
   * @param serverVersion {@code server_version_num}
   * @param failover the slot's {@code failover} flag (false when the server has none, or no slot)
   * @param synchronizedStandbySlots the primary's {@code synchronized_standby_slots}, blank when
   *     unset
   * @param missingStandbySlots the slots it names that are not active physical slots (a standby
   *     down, or a name that matches none)
   */
  public record Readiness(
      int serverVersion,
      boolean failover,
      String synchronizedStandbySlots,
      List<String> missingStandbySlots) {

    /** The slot is copied to a standby and nothing is sent before that standby has the WAL. */
    public boolean ready() {
      return failover && !synchronizedStandbySlots.isBlank() && missingStandbySlots.isEmpty();
    }

    /** One line for /health and the log. */
    public String describe() {
      if (!failover) {
        return "the slot is not a failover slot";
      }
      if (synchronizedStandbySlots.isBlank()) {
        return "failover slot, but the primary's synchronized_standby_slots is not set: a failover"
            + " can leave events in Kafka for commits the new primary never received";
      }
      if (!missingStandbySlots.isEmpty()) {
        return "failover slot; synchronized_standby_slots = '"
            + synchronizedStandbySlots
            + "' but "
            + missingStandbySlots
            + " not streaming (standby down?): the relay's stream waits for it";
      }
      return "failover slot, synchronized to the standby slots '" + synchronizedStandbySlots + "'";
    }
  }

  public Readiness read() throws SQLException {
    try (Connection connection = pool.getConnection();
        PreparedStatement statement = connection.prepareStatement(READINESS_SQL)) {
      statement.setString(1, slotName);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        int version = row.getInt(1);
        boolean failover = row.getBoolean(2);
        String standbySlots = row.getString(3).strip();
        String active = row.getString(4);
        List<String> activeSlots = active == null ? List.of() : Arrays.asList(active.split(","));
        List<String> missing =
            standbySlots.isBlank()
                ? List.of()
                : Arrays.stream(standbySlots.split(","))
                    .map(String::strip)
                    .filter(name -> !name.isEmpty() && !activeSlots.contains(name))
                    .toList();
        return new Readiness(version, failover, standbySlots, missing);
      }
    }
  }

  /**
   * Sets {@code failover = true} on the slot ({@code ALTER_REPLICATION_SLOT}, a
   * replication-protocol command: PostgreSQL 17 has no SQL function for it). The slot must not be
   * in use.
   */
  public void enable() throws SQLException {
    Properties properties = new Properties();
    properties.putAll(database.driverSecrets());
    properties.setProperty("user", database.user());
    properties.setProperty("password", database.password());
    properties.setProperty("replication", "database");
    properties.setProperty("assumeMinServerVersion", "17");
    properties.setProperty("preferQueryMode", "simple");
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), properties);
        Statement statement = connection.createStatement()) {
      // A replication command takes no bind parameters; the name is quoted as an identifier.
      statement.execute(
          "ALTER_REPLICATION_SLOT \"" + slotName.replace("\"", "\"\"") + "\" ( FAILOVER true )");
    }
  }
}
