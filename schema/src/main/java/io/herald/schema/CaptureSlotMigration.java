package io.herald.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * Creates the logical replication slot (pgoutput) during schema set-up, once.
 *
 * <p>PostgreSQL refuses to create a logical slot in a transaction that has written anything, so
 * this migration runs outside Flyway's transaction. When the writer and consumer schemas share a
 * database the second one finds the slot already there and records it; a slot of that name
 * belonging to another database is an error, since a slot name is cluster-wide.
 */
final class CaptureSlotMigration implements JavaMigration {

  static final MigrationVersion VERSION = MigrationVersion.fromVersion("4");

  private static final String WAL_LEVEL = "SELECT current_setting('wal_level')";
  private static final String FIND_SLOT =
      "SELECT database, plugin, slot_type FROM pg_replication_slots WHERE slot_name = ?";
  private static final String CREATE_SLOT =
      "SELECT lsn::text FROM pg_create_logical_replication_slot(?, 'pgoutput')";
  private static final String REGISTER_SLOT =
      "INSERT INTO herald_relay.capture_slot (slot_name, database_name, consistent_point)"
          + " VALUES (?, current_database(), ?::pg_lsn) ON CONFLICT (slot_name) DO NOTHING";

  private final String slot;

  CaptureSlotMigration(String slot) {
    this.slot = slot;
  }

  @Override
  public MigrationVersion getVersion() {
    return VERSION;
  }

  @Override
  public String getDescription() {
    return "capture slot";
  }

  @Override
  public Integer getChecksum() {
    // The slot name is configuration, not migration content: a checksum over it would make a
    // renamed slot look like an edited migration.
    return 4;
  }

  @Override
  public boolean canExecuteInTransaction() {
    return false;
  }

  @Override
  public void migrate(Context context) throws SQLException {
    Connection connection = context.getConnection();
    requireLogicalWal(connection);
    String database = connection.getCatalog();
    try (PreparedStatement find = connection.prepareStatement(FIND_SLOT)) {
      find.setString(1, slot);
      try (ResultSet existing = find.executeQuery()) {
        if (existing.next()) {
          requireOurs(existing, database);
          return;
        }
      }
    }
    String consistentPoint;
    try (PreparedStatement create = connection.prepareStatement(CREATE_SLOT)) {
      create.setString(1, slot);
      try (ResultSet created = create.executeQuery()) {
        created.next();
        consistentPoint = created.getString(1);
      }
    }
    try (PreparedStatement register = connection.prepareStatement(REGISTER_SLOT)) {
      register.setString(1, slot);
      register.setString(2, consistentPoint);
      register.executeUpdate();
    }
  }

  private void requireOurs(ResultSet existing, String database) throws SQLException {
    String slotDatabase = existing.getString("database");
    String plugin = existing.getString("plugin");
    String type = existing.getString("slot_type");
    if (!"logical".equals(type) || !"pgoutput".equals(plugin) || !database.equals(slotDatabase)) {
      throw new IllegalStateException(
          "Replication slot '"
              + slot
              + "' already exists as a "
              + type
              + " slot with plugin "
              + plugin
              + " in database "
              + slotDatabase
              + ", but Herald needs a logical pgoutput slot in database "
              + database
              + ". Slot names are cluster-wide: choose another slot name for this database.");
    }
  }

  private static void requireLogicalWal(Connection connection) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(WAL_LEVEL);
        ResultSet level = query.executeQuery()) {
      level.next();
      String walLevel = level.getString(1);
      if (!"logical".equals(walLevel)) {
        throw new IllegalStateException(
            "PostgreSQL runs with wal_level="
                + walLevel
                + ", but the relay's capture needs wal_level=logical (set it in postgresql.conf and"
                + " restart the server).");
      }
    }
  }
}
