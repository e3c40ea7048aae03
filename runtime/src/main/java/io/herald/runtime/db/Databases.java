package io.herald.runtime.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.herald.runtime.ops.HealthCheck;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Connection pools for Herald processes. Stateless; the pools it returns are thread-safe. */
public final class Databases {

  private Databases() {}

  /**
   * A HikariCP pool named {@code name} (in metrics, logs and thread names), with its metrics
   * ({@code hikaricp_connections_*}) bound to {@code registry}.
   *
   * <p>The pool starts even when the database is down ({@code initializationFailTimeout=-1}): the
   * process comes up, reports DOWN on {@code /health}, answers 503, and recovers by itself when the
   * database returns, instead of crash-looping. A fixed-size pool ({@code minimumIdle =
   * maximumPoolSize}) avoids connection storms under a sudden load. Connections are recycled every
   * 30 minutes, below common proxy and firewall idle limits. The caller closes the pool.
   */
  public static HikariDataSource pool(String name, DatabaseConfig config, MeterRegistry registry) {
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName(name);
    hikari.setJdbcUrl(config.jdbcUrl());
    hikari.setUsername(config.user());
    if (config.password() != null && !config.password().isEmpty()) {
      hikari.setPassword(config.password());
    }
    hikari.setMaximumPoolSize(config.poolSize());
    hikari.setMinimumIdle(config.poolSize());
    hikari.setConnectionTimeout(config.connectTimeout().toMillis());
    hikari.setValidationTimeout(Math.min(config.connectTimeout().toMillis(), 5_000));
    hikari.setMaxLifetime(Duration.ofMinutes(30).toMillis());
    hikari.setKeepaliveTime(Duration.ofMinutes(2).toMillis());
    hikari.setInitializationFailTimeout(-1);
    hikari.setAutoCommit(true);
    // Name the connections so pg_stat_activity shows which process and pool holds them.
    hikari.addDataSourceProperty("ApplicationName", "herald-" + name);
    // Bounded socket reads: a hung server must not hang a request forever (5 minutes covers
    // the longest legitimate statement; statement timeouts are set per use case).
    hikari.addDataSourceProperty("socketTimeout", "300");
    hikari.addDataSourceProperty(
        "connectTimeout", Long.toString(Math.max(1, config.connectTimeout().toSeconds())));
    config.driverSecrets().forEach(hikari::addDataSourceProperty);
    hikari.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
    return new HikariDataSource(hikari);
  }

  /**
   * A data source without a pool: every {@code getConnection()} opens a new connection, closed by
   * its caller. For short work on a connection the process does not keep, such as the schema
   * migrations as their own user ({@code *.db.migration-user}): they need two connections at once
   * (the migration lock and Flyway's), and none afterwards.
   */
  public static DataSource unpooled(DatabaseConfig config) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(config.jdbcUrl());
    dataSource.setUser(config.user());
    if (config.password() != null && !config.password().isEmpty()) {
      dataSource.setPassword(config.password());
    }
    dataSource.setApplicationName("herald-migrations");
    dataSource.setConnectTimeout((int) Math.max(1, config.connectTimeout().toSeconds()));
    for (Map.Entry<String, String> secret : config.driverSecrets().entrySet()) {
      try {
        dataSource.setProperty(secret.getKey(), secret.getValue());
      } catch (SQLException e) {
        // The keys are the driver's own property names (DatabaseConfig), so this is a bug.
        throw new IllegalArgumentException(
            "PostgreSQL driver property " + secret.getKey() + " is unknown to the driver", e);
      }
    }
    return dataSource;
  }

  /** How long {@code /health} waits for the database probe before it answers DOWN. */
  public static final Duration HEALTH_ANSWER_WITHIN = Duration.ofSeconds(1);

  /**
   * A health check that borrows a connection and validates it: DOWN with the cause when the
   * database cannot be reached. The check answers within {@link #HEALTH_ANSWER_WITHIN} even when
   * borrowing waits for the pool's connection timeout, since probes (a Kubernetes probe times out
   * after 1 s by default) must see a 503, not a hung request; the slow probe goes on in the
   * background and later checks wait on it instead of starting another.
   */
  public static HealthCheck healthCheck(String name, DataSource dataSource) {
    return healthCheck(name, dataSource, HEALTH_ANSWER_WITHIN);
  }

  /** {@link #healthCheck(String, DataSource)} answering within {@code answerWithin}. */
  public static HealthCheck healthCheck(String name, DataSource dataSource, Duration answerWithin) {
    DatabaseProbe probe = new DatabaseProbe(dataSource);
    return HealthCheck.of(name, () -> probe.check(answerWithin));
  }
}
