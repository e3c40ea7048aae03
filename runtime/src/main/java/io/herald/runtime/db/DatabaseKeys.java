package io.herald.runtime.db;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Validator;
import java.time.Duration;
import java.util.Optional;

/**
 * The database keys every process with a database shares, under a prefix ({@code writer.db}, {@code
 * consumer.db}): {@code jdbc-url}, {@code user}, {@code password} (secret), {@code pool-size},
 * {@code connect-timeout}. Immutable and thread-safe.
 */
public final class DatabaseKeys {

  private final ConfigKey<String> jdbcUrl;
  private final ConfigKey<String> user;
  private final ConfigKey<String> password;
  private final ConfigKey<Integer> poolSize;
  private final ConfigKey<Duration> connectTimeout;
  private final ConfigKey<String> migrationUser;
  private final ConfigKey<String> migrationPassword;

  private DatabaseKeys(ConfigDef.Builder def, String prefix) {
    jdbcUrl =
        def.define(
            ConfigKey.required(
                    prefix + ".jdbc-url",
                    ConfigType.STRING,
                    "JDBC URL of the PostgreSQL database, jdbc:postgresql://host:port/database.")
                .validatedBy(
                    Validator.matches("jdbc:postgresql:.+", "must start with jdbc:postgresql:")));
    user = def.define(ConfigKey.required(prefix + ".user", ConfigType.STRING, "Database user."));
    password =
        def.define(
            ConfigKey.optional(
                    prefix + ".password",
                    ConfigType.STRING,
                    null,
                    "Database password; empty when the server does not ask for one.")
                .secret());
    poolSize =
        def.define(
            ConfigKey.optional(
                    prefix + ".pool-size",
                    ConfigType.INT,
                    10,
                    "Maximum connections in the pool (the pool keeps this many open).")
                .validatedBy(Validator.between(1, 1000)));
    connectTimeout =
        def.define(
            ConfigKey.optional(
                    prefix + ".connect-timeout",
                    ConfigType.DURATION,
                    Duration.ofSeconds(5),
                    "How long a caller waits for a pooled connection before failing.")
                .validatedBy(Validator.atLeast(Duration.ofMillis(250))));
    migrationUser =
        def.define(
            ConfigKey.optional(
                prefix + ".migration-user",
                ConfigType.STRING,
                null,
                "User the schema migrations run as (herald_migrator, the schemas' owner), on a"
                    + " connection of their own that closes after them; unset: the process's own"
                    + " user."));
    migrationPassword =
        def.define(
            ConfigKey.optional(
                    prefix + ".migration-password",
                    ConfigType.STRING,
                    null,
                    "Password of the migration user; empty when the server does not ask for one.")
                .secret());
  }

  /** Defines the keys under {@code prefix} in {@code def}. */
  public static DatabaseKeys define(ConfigDef.Builder def, String prefix) {
    return new DatabaseKeys(def, prefix);
  }

  /** The database settings read from {@code values}. */
  public DatabaseConfig read(ConfigValues values) {
    return new DatabaseConfig(
        values.get(jdbcUrl),
        values.get(user),
        values.get(password),
        values.get(poolSize),
        values.get(connectTimeout));
  }

  /**
   * The connection the schema migrations use: the same server, database and driver secrets as
   * {@code database}, as the migration user; empty when none is configured (the migrations then run
   * on the process's pool, as its own user).
   *
   * @throws ConfigException when a migration password is set without a migration user
   */
  public Optional<DatabaseConfig> readMigration(ConfigValues values, DatabaseConfig database) {
    Optional<String> user = values.find(migrationUser);
    if (user.isEmpty()) {
      if (values.find(migrationPassword).isPresent()) {
        throw new ConfigException(
            migrationPassword.name()
                + " is set but "
                + migrationUser.name()
                + " is not: set the user the migrations run as, or remove the password");
      }
      return Optional.empty();
    }
    return Optional.of(
        new DatabaseConfig(
            database.jdbcUrl(),
            user.get(),
            values.find(migrationPassword).orElse(null),
            1,
            database.connectTimeout(),
            database.driverSecrets()));
  }

  public ConfigKey<String> jdbcUrl() {
    return jdbcUrl;
  }

  public ConfigKey<String> user() {
    return user;
  }

  public ConfigKey<String> password() {
    return password;
  }

  public ConfigKey<Integer> poolSize() {
    return poolSize;
  }

  public ConfigKey<Duration> connectTimeout() {
    return connectTimeout;
  }
}
