package io.herald.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.writer.auth.TenantTokens;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer as it runs in production: {@code WriterMain} in its own JVM, reading a property file
 * with environment overrides, migrating its schema, serving, and stopping cleanly on SIGTERM.
 */
@HeraldIntegrationTest
class WriterMainIT {

  private static final String TOKEN = "main-it-token";

  @Test
  void shouldStartFromPropertyFileAndEnvironmentServeAndStopOnSigterm(
      StackContext stack, @TempDir Path dir) throws Exception {
    int apiPort = freePort();
    int opsPort = freePort();
    Path config = dir.resolve("writer.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "writer.http.host=127.0.0.1",
            "writer.http.port=1", // overridden by HERALD_WRITER_HTTP_PORT below
            "writer.ops.host=127.0.0.1",
            "writer.db.jdbc-url=" + stack.jdbcUrl(),
            "writer.db.user=" + stack.user(),
            "writer.capture.publication=" + stack.publication(),
            "writer.capture.slot=" + stack.slot(),
            "writer.tenants.t1.token-sha256=" + TenantTokens.sha256Hex(TOKEN),
            ""));
    try (ChildJvm writer =
        ChildJvm.builder("writer", WriterMain.class.getName())
            .jvmOptions(List.of("-Xmx256m"))
            .logbackConfig(ShippedConfig.of("writer").logbackFile())
            .args(config.toString())
            .env(
                Map.of(
                    "HERALD_WRITER_HTTP_PORT", Integer.toString(apiPort),
                    "HERALD_WRITER_OPS_PORT", Integer.toString(opsPort),
                    "HERALD_WRITER_DB_PASSWORD", stack.password()))
            .logFile(dir.resolve("writer.log"))
            .start()) {
      writer.awaitHealthy(
          URI.create("http://127.0.0.1:" + opsPort + "/health"), Duration.ofSeconds(90));
      HttpClient http = HttpClient.newHttpClient();

      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/v1/publications"))
                  .header("Authorization", "Bearer " + TOKEN)
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"articleId\":\"a-main\",\"revisionId\":\"r-1\",\"destination\":\"d\",\"content\":{}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

      assertThat(writer.stop(Duration.ofSeconds(30))).as("stopped by SIGTERM").isPresent();
      assertThat(writer.logText())
          .contains("Writer ready")
          .contains("writer.db.password = ****")
          .contains("writer: stopped");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
