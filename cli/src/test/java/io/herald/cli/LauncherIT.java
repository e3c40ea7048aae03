package io.herald.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code ./herald} launcher at the repository root runs the packaged jar (Failsafe runs after
 * {@code package}, so the jar and {@code target/lib} exist).
 */
class LauncherIT {

  @Test
  void shouldRunThePackagedCommandFromTheRepositoryRoot() throws Exception {
    Path launcher = Path.of("").toAbsolutePath().getParent().resolve("herald");
    Path out = Files.createDirectories(Path.of("target", "cli-it")).resolve("launcher.out");
    ProcessBuilder builder =
        new ProcessBuilder("sh", launcher.toString(), "slot", "status", "--help")
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();

    assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).startsWith("Usage: herald slot status");
  }
}
