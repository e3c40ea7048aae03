package io.herald.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./herald} launcher at the repository root runs the packaged jar with the jars copied
 * to {@code target/lib} (Failsafe runs after {@code package}, so both exist), and that class path
 * holds everything the commands load: the processes' config classes and the database driver.
 */
class LauncherIT {

  @TempDir Path dir;

  private record Run(int exitCode, String output) {}

  private Run launch(Map<String, String> env, String... args) throws Exception {
    Path launcher = Path.of("").toAbsolutePath().getParent().resolve("herald");
    Path out =
        Files.createTempFile(
            Files.createDirectories(Path.of("target", "cli-it")), "launcher-", ".out");
    List<String> command = new ArrayList<>(List.of("sh", launcher.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("HERALD_"));
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  @Test
  void shouldRunThePackagedCommandFromTheRepositoryRoot() throws Exception {
    Run run = launch(Map.of(), "slot", "status", "--help");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).startsWith("Usage: herald slot status");
  }

  @Test
  void shouldLoadTheShippedConsumerConfigurationOnTheLaunchersClassPath() throws Exception {
    Files.copy(ShippedConfig.of("consumer").file(), dir.resolve("consumer.properties"));

    Run run =
        launch(
            Map.of(), "--config-dir", dir.toString(), "deliveries", "list", "--state", "UNCERTAIN");

    assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
    assertThat(run.output()).startsWith("herald: no operator token");
  }

  @Test
  void shouldReachForTheRelaysDatabaseOnTheLaunchersClassPath() throws Exception {
    Files.copy(ShippedConfig.of("relay").file(), dir.resolve("relay.properties"));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }

    Run run =
        launch(
            Map.of("HERALD_DEBEZIUM_SOURCE_DATABASE_PORT", Integer.toString(port)),
            "--config-dir",
            dir.toString(),
            "slot",
            "status");

    assertThat(run.exitCode()).as(run.output()).isEqualTo(3);
    assertThat(run.output())
        .startsWith("herald: cannot read slot 'herald_relay'")
        .contains("SQLState 08001");
  }
}
