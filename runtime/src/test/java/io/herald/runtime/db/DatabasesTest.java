package io.herald.runtime.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.HealthCheck;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** No database needed: these tests cover the behaviour while the database is unreachable. */
class DatabasesTest {

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void shouldStartThePoolWhileTheDatabaseIsDownAndReportItDown() throws Exception {
    DatabaseConfig config =
        new DatabaseConfig(
            "jdbc:postgresql://127.0.0.1:" + closedPort() + "/herald",
            "herald",
            "pw",
            2,
            Duration.ofMillis(500));
    PrometheusMeterRegistry registry = Metrics.newRegistry("test");
    try (HikariDataSource pool = Databases.pool("writer", config, registry)) {

      HealthCheck.Status status =
          Databases.healthCheck("database", pool, Duration.ofSeconds(5)).check();

      assertFalse(status.up());
      assertTrue(status.detail().contains("cannot get a connection"), status.detail());
      assertEquals("writer", pool.getPoolName());
      assertNotNull(registry.find("hikaricp.connections.max").tag("pool", "writer").gauge());
    } finally {
      registry.close();
    }
  }

  @Test
  void shouldAnswerDownWithinItsBoundWhileBorrowingAConnectionWaitsForThePoolTimeout()
      throws Exception {
    // The pool would wait 10 s for a connection; the health answer must not.
    DatabaseConfig config =
        new DatabaseConfig(
            "jdbc:postgresql://127.0.0.1:" + closedPort() + "/herald",
            "herald",
            "pw",
            1,
            Duration.ofSeconds(10));
    PrometheusMeterRegistry registry = Metrics.newRegistry("test");
    try (HikariDataSource pool = Databases.pool("consumer", config, registry)) {
      HealthCheck check = Databases.healthCheck("database", pool, Duration.ofMillis(300));

      HealthCheck.Status first = check.check();
      HealthCheck.Status second = check.check();

      assertFalse(first.up());
      assertTrue(first.detail().contains("no connection within 300 ms"), first.detail());
      assertFalse(second.up());
      assertTrue(second.detail().contains("still waiting"), second.detail());
    } finally {
      registry.close();
    }
  }

  @Test
  void shouldMaskThePasswordInToString() {
    DatabaseConfig config =
        new DatabaseConfig("jdbc:postgresql://h/db", "u", "very-secret", 1, Duration.ofSeconds(1));

    assertFalse(config.toString().contains("very-secret"), config.toString());
  }

  @Test
  void shouldGiveTheDriverTheSecretPropertiesButNameThemOnlyInToString() throws Exception {
    DatabaseConfig config =
        new DatabaseConfig(
            "jdbc:postgresql://127.0.0.1:" + closedPort() + "/herald?sslmode=verify-full",
            "herald",
            null,
            1,
            Duration.ofMillis(500),
            Map.of("sslpassword", "key-passphrase"));
    PrometheusMeterRegistry registry = Metrics.newRegistry("test");
    try (HikariDataSource pool = Databases.pool("relay", config, registry)) {

      assertEquals("key-passphrase", pool.getDataSourceProperties().getProperty("sslpassword"));
      assertFalse(config.toString().contains("key-passphrase"), config.toString());
      assertTrue(config.toString().contains("driverSecrets=[sslpassword]"), config.toString());
    } finally {
      registry.close();
    }
  }

  @Test
  void shouldRejectANonPostgresUrlAndAnEmptyPool() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new DatabaseConfig("jdbc:mysql://h/db", "u", null, 1, Duration.ofSeconds(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new DatabaseConfig("jdbc:postgresql://h/db", "u", null, 0, Duration.ofSeconds(1)));
  }
}
