package io.herald.devstack.containers;

import io.herald.devstack.PostgresServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** Waits, bounded, for a restarted container to serve again. */
final class ContainerReadiness {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final long PAUSE_MS = 200;

  private ContainerReadiness() {}

  static void awaitTcp(String host, int port, String what) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 1_000);
        return;
      } catch (IOException e) {
        last = e;
        pause();
      }
    }
    throw new IllegalStateException(what + " on " + host + ":" + port + " not reachable", last);
  }

  static void awaitJdbc(PostgresServer server) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      try (Connection connection =
          DriverManager.getConnection(
              server.jdbcUrl("postgres"), server.user(), server.password())) {
        return;
      } catch (SQLException e) {
        // The server refuses connections while it recovers after the restart.
        last = e;
        pause();
      }
    }
    throw new IllegalStateException("PostgreSQL not ready after restart", last);
  }

  static void awaitKafka(String bootstrapServers) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    Exception last = null;
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                3_000))) {
      while (System.nanoTime() < deadline) {
        try {
          if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          last = e;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
    throw new IllegalStateException(
        "Kafka on " + bootstrapServers + " not ready after restart", last);
  }

  private static void pause() {
    try {
      Thread.sleep(PAUSE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a container", e);
    }
  }
}
