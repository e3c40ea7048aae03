package io.herald.runtime.db;

import io.herald.runtime.ops.HealthCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * Borrows and validates a connection on a virtual thread, with at most one probe in flight: a
 * health request waits for it a bounded time, so an unreachable database makes {@code /health}
 * answer DOWN quickly instead of piling up requests that each wait for the pool's timeout.
 *
 * <p>Thread-safe.
 */
final class DatabaseProbe {

  private final DataSource dataSource;
  private CompletableFuture<HealthCheck.Status> inFlight;

  DatabaseProbe(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  HealthCheck.Status check(Duration answerWithin) {
    CompletableFuture<HealthCheck.Status> probe = currentProbe();
    try {
      return probe.get(answerWithin.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return HealthCheck.Status.down(
          "no connection within " + answerWithin.toMillis() + " ms (the probe is still waiting)");
    } catch (ExecutionException e) {
      return HealthCheck.Status.down("probe failed: " + e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return HealthCheck.Status.down("interrupted while probing the database");
    }
  }

  private synchronized CompletableFuture<HealthCheck.Status> currentProbe() {
    if (inFlight == null || inFlight.isDone()) {
      CompletableFuture<HealthCheck.Status> probe = new CompletableFuture<>();
      Thread.ofVirtual().name("database-probe").start(() -> probe.complete(probeOnce()));
      inFlight = probe;
    }
    return inFlight;
  }

  private HealthCheck.Status probeOnce() {
    try (Connection connection = dataSource.getConnection()) {
      return connection.isValid(5)
          ? HealthCheck.Status.up("connection valid")
          : HealthCheck.Status.down("connection not valid");
    } catch (SQLException e) {
      return HealthCheck.Status.down(
          "cannot get a connection: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")");
    } catch (RuntimeException e) {
      return HealthCheck.Status.down("cannot get a connection: " + e);
    }
  }
}
