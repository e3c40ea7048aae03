package io.herald.schema;

import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one Herald schema's migrations with Flyway: the schema's own tables, then the capture
 * set-up shared by both schemas (COPY guard, publication, heartbeat table, logical slot).
 *
 * <p>Thread-safety: stateless; concurrent calls against one database are serialised by Flyway's
 * lock on the schema history table.
 */
public final class SchemaMigrator {

  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

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
    MigrateResult result = flyway.migrate();
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
}
