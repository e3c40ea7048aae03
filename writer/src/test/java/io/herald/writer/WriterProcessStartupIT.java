package io.herald.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.config.ConfigSource;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.config.WriterConfig;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Start-up waits for PostgreSQL, but only for the configured time, and then says why it gave up.
 */
class WriterProcessStartupIT {

  @Test
  void shouldGiveUpWithAClearMessageWhenTheDatabaseStaysUnreachable() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    WriterConfig config =
        WriterConfig.from(
            ConfigSource.of(
                Map.of(
                    "writer.http.host", "127.0.0.1",
                    "writer.http.port", "0",
                    "writer.ops.port", "0",
                    "writer.db.jdbc-url", "jdbc:postgresql://127.0.0.1:" + closedPort + "/none",
                    "writer.db.user", "nobody",
                    "writer.db.connect-timeout", "500ms",
                    "writer.db.startup-timeout", "2s",
                    "writer.tenants.t1.token-sha256", TenantTokens.sha256Hex("t")),
                Map.of()));

    long started = System.nanoTime();
    assertThatThrownBy(() -> WriterProcess.start(config))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not reachable within")
        .hasMessageContaining("127.0.0.1:" + closedPort);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }
}
