package io.herald.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one Herald schema's migrations with Flyway: the schema's own tables, then the capture
 * set-up shared by both schemas (COPY guard, publication, heartbeat table, logical slot), and after
 * every run the grants of the database roles ({@link DatabaseRoles}) when they exist. Run it as
 * {@code herald_migrator}, the schemas' owner, where the roles are set up.
 *
 * <p>Thread-safety: stateless. Concurrent calls against one database, from any number of processes,
 * are serialised by a PostgreSQL advisory lock: the writer and the consumer both run the shared
 * capture steps (publication, slot) and may start at the same moment.
 */
public final class SchemaMigrator {

  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

  /**
   * Advisory lock key shared by every Herald migration of a database. Flyway's own lock covers one
   * schema history table only, and the capture steps touch objects both schemas share.
   */
  static final long MIGRATION_LOCK_KEY = 0x4845_5241_4c44_0001L;

  private static final String LOCK = "SELECT pg_advisory_lock(?)";
  private static final String UNLOCK = "SELECT pg_advisory_unlock(?)";

  private SchemaMigrator() {}

  /**
   * Migrates {@code schema} to the latest version; a no-op when it is current.
   *
   * @return the number of migrations applied by this call
   */
  public static int migrate(DataSource dataSource, HeraldSchema schema, CaptureSettings capture) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(capture, "capture");
    Flyway flyway =
        Flyway.configure()
            .dataSource(dataSource)
            .schemas(schema.schemaName())
            .defaultSchema(schema.schemaName())
            .createSchemas(true)
            .table("flyway_schema_history")
            .locations(
                "classpath:db/migration/" + schema.schemaName(), "classpath:db/migration/capture")
            .placeholders(
                Map.of(
                    "schema", schema.schemaName(),
                    "publication", capture.publication(),
                    "slot", capture.slot()))
            .javaMigrations(new CaptureSlotMigration(capture.slot()))
            .validateMigrationNaming(true)
            .cleanDisabled(true)
            .load();
    MigrateResult result = migrateUnderLock(dataSource, flyway);
    log.info(
        "Schema {} migrated from version {} to {} ({} migrations applied; publication {}, slot {})",
        schema.schemaName(),
        result.initialSchemaVersion,
        result.targetSchemaVersion,
        result.migrationsExecuted,
        capture.publication(),
        capture.slot());
    return result.migrationsExecuted;
  }

  /**
   * Holds the advisory lock on a connection of its own, outside any transaction: creating the slot
   * waits for every transaction that holds an xid, and this connection never takes one.
   */
  private static MigrateResult migrateUnderLock(DataSource dataSource, Flyway flyway) {
    try (Connection lock = dataSource.getConnection()) {
      lock.setAutoCommit(true);
      call(lock, LOCK);
      MigrateResult result;
      try {
        result = flyway.migrate();
      } catch (RuntimeException e) {
        // The lock must not outlive a failed migration on a pooled connection; an unlock failure
        // is attached to the migration's own error rather than replacing it.
        try {
          call(lock, UNLOCK);
        } catch (SQLException unlockFailure) {
          e.addSuppressed(unlockFailure);
        }
        throw e;
      }
      call(lock, UNLOCK);
      return result;
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Could not take or release the Herald migration lock (SQLState " + e.getSQLState() + ")",
          e);
    }
  }

  private static void call(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setLong(1, MIGRATION_LOCK_KEY);
      statement.execute();
    }
  }
}
