package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ops/prometheus} as Prometheus itself reads it: {@code promtool} checks the rules and the
 * scrape configuration and runs the rules' unit tests ({@code alerts-test.yml}). Skipped, with the
 * reason, where {@code promtool} is not on the PATH ({@code .ci/run} installs Debian's {@code
 * prometheus} package when it runs as root with apt-get).
 */
class AlertRulesTest {

  private static final long TIMEOUT_SECONDS = 60;

  private static Path promtool;

  @BeforeAll
  static void findPromtool() {
    promtool = onPath("promtool");
    assumeTrue(
        promtool != null,
        "promtool is not on the PATH: skipping the alert rule checks (install Debian's"
            + " 'prometheus' package, or run .ci/run as root, to run them)");
  }

  @Test
  void shouldPassPromtoolCheckWhenCheckingTheAlertRules() throws Exception {
    Result result = promtool("check", "rules", "alerts.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void shouldPassPromtoolCheckWhenCheckingTheScrapeConfig() throws Exception {
    Result result = promtool("check", "config", "prometheus.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
  }

  @Test
  void shouldPassEveryAlertUnitTestWhenPromtoolRunsAlertsTest() throws Exception {
    Result result = promtool("test", "rules", "alerts-test.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS").doesNotContain("FAILED");
  }

  @Test
  void shouldTestEveryAlertWhenAlertsTestIsRead() throws IOException {
    Path dir = OpsFiles.prometheusDir();
    List<String> alerts = lineValues(dir.resolve("alerts.yml"), "- alert:");
    List<String> tested = lineValues(dir.resolve("alerts-test.yml"), "alertname:");

    assertThat(alerts).isNotEmpty();
    assertThat(tested).containsAll(alerts);
  }

  private record Result(int exitCode, String output) {}

  private static Result promtool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .directory(OpsFiles.prometheusDir().toFile())
            .redirectErrorStream(true)
            .start();
    // promtool's output is a few lines; read it all, then wait for the exit.
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          String.join(" ", command) + " did not exit within " + TIMEOUT_SECONDS + "s: " + output);
    }
    return new Result(process.exitValue(), String.join(" ", command) + "\n" + output);
  }

  /** The trimmed value after {@code key} on each line that has it (alert names, both files). */
  private static List<String> lineValues(Path file, String key) throws IOException {
    List<String> values = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      int at = line.indexOf(key);
      if (at >= 0) {
        values.add(line.substring(at + key.length()).trim());
      }
    }
    return values;
  }

  private static Path onPath(String executable) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, executable);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
