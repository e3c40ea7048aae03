package io.herald.runtime.db;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * How a process reaches its PostgreSQL database. Immutable; {@link #toString()} masks the password,
 * so the record can be logged.
 *
 * @param jdbcUrl {@code jdbc:postgresql://host:port/database}
 * @param user database user
 * @param password the user's password, or null when the server does not ask for one
 * @param poolSize maximum connections the pool opens (it keeps as many open)
 * @param connectTimeout how long a caller waits for a connection before failing
 * @param driverSecrets PostgreSQL driver properties kept out of the URL because they are secret
 *     (such as {@code sslpassword}, the passphrase of an encrypted client key), so that the URL can
 *     be logged; {@link #toString()} shows their names only
 */
public record DatabaseConfig(
    String jdbcUrl,
    String user,
    String password,
    int poolSize,
    Duration connectTimeout,
    Map<String, String> driverSecrets) {

  /** A connection with no secret driver properties. */
  public DatabaseConfig(
      String jdbcUrl, String user, String password, int poolSize, Duration connectTimeout) {
    this(jdbcUrl, user, password, poolSize, connectTimeout, Map.of());
  }

  public DatabaseConfig {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    driverSecrets = Map.copyOf(Objects.requireNonNull(driverSecrets, "driverSecrets"));
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("jdbcUrl must start with jdbc:postgresql:");
    }
    if (poolSize < 1) {
      throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
    }
    if (connectTimeout.toMillis() < 250) {
      // HikariCP's floor for connectionTimeout.
      throw new IllegalArgumentException(
          "connectTimeout must be at least 250ms: " + connectTimeout);
    }
  }

  @Override
  public String toString() {
    return "DatabaseConfig[jdbcUrl="
        + io.herald.config.EffectiveConfig.maskEmbedded(jdbcUrl)
        + ", user="
        + user
        + ", password="
        + (password == null || password.isEmpty() ? "(none)" : "****")
        + ", poolSize="
        + poolSize
        + ", connectTimeout="
        + io.herald.config.Durations.format(connectTimeout)
        + (driverSecrets.isEmpty()
            ? ""
            : ", driverSecrets=" + new TreeSet<>(driverSecrets.keySet()))
        + "]";
  }
}
