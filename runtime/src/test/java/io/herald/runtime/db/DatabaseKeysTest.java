package io.herald.runtime.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigSource;
import io.herald.config.ConfigValues;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DatabaseKeysTest {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("demo");
  private static final DatabaseKeys DB = DatabaseKeys.define(KEYS, "demo.db");
  private static final ConfigDef DEF = KEYS.build();

  private static ConfigValues read(Map<String, String> extra, Map<String, String> env) {
    Map<String, String> properties = new HashMap<>();
    properties.put("demo.db.jdbc-url", "jdbc:postgresql://db:5432/herald?sslmode=require");
    properties.put("demo.db.user", "herald_writer");
    properties.put("demo.db.connect-timeout", "3s");
    properties.putAll(extra);
    return DEF.read(ConfigSource.of(properties, env));
  }

  @Test
  void shouldMigrateOnTheProcessesPoolWhenNoMigrationUserIsSet() {
    ConfigValues values = read(Map.of(), Map.of());

    assertThat(DB.readMigration(values, DB.read(values))).isEmpty();
  }

  @Test
  void shouldMigrateAsTheMigrationUserOnTheSameDatabaseWithOneConnection() {
    ConfigValues values =
        read(
            Map.of("demo.db.migration-user", "herald_migrator"),
            Map.of("HERALD_DEMO_DB_MIGRATION_PASSWORD", "s3cret"));
    DatabaseConfig database =
        new DatabaseConfig(
            "jdbc:postgresql://db:5432/herald?sslmode=require",
            "herald_writer",
            null,
            10,
            Duration.ofSeconds(3),
            Map.of("sslpassword", "key-pass"));

    Optional<DatabaseConfig> migration = DB.readMigration(values, database);

    assertThat(migration)
        .contains(
            new DatabaseConfig(
                "jdbc:postgresql://db:5432/herald?sslmode=require",
                "herald_migrator",
                "s3cret",
                1,
                Duration.ofSeconds(3),
                Map.of("sslpassword", "key-pass")));
    assertThat(values.effective().toString()).doesNotContain("s3cret");
  }

  @Test
  void shouldRefuseAMigrationPasswordWithoutAMigrationUser() {
    ConfigValues values = read(Map.of("demo.db.migration-password", "s3cret"), Map.of());

    assertThatThrownBy(() -> DB.readMigration(values, DB.read(values)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("demo.db.migration-password is set but demo.db.migration-user is not")
        .hasMessageNotContaining("s3cret");
  }
}
