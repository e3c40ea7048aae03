package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ops/prometheus} as Prometheus itself reads it: {@code promtool} checks the rules and the
 * scrape configuration and runs the rules' unit tests ({@code alerts-test.yml}). The promtool tests
 * are skipped, with the reason, where {@code promtool} is not on the PATH ({@code .ci/run} installs
 * Debian's {@code prometheus} package when it runs as root with apt-get).
 */
class AlertRulesTest {

  private static final Path DIR = OpsFiles.prometheusDir();

  @Test
  void shouldPassPromtoolCheckWhenCheckingTheAlertRules() throws Exception {
    Promtool.Result result = promtool().run(DIR, "check", "rules", "alerts.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void shouldPassPromtoolCheckWhenCheckingTheScrapeConfig() throws Exception {
    Promtool.Result result = promtool().run(DIR, "check", "config", "prometheus.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
  }

  @Test
  void shouldPassEveryAlertUnitTestWhenPromtoolRunsAlertsTest() throws Exception {
    Promtool.Result result = promtool().run(DIR, "test", "rules", "alerts-test.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS").doesNotContain("FAILED");
  }

  @Test
  void shouldTestEveryAlertWhenAlertsTestIsRead() throws IOException {
    List<String> alerts = lineValues(DIR.resolve("alerts.yml"), "- alert:");
    List<String> tested = lineValues(DIR.resolve("alerts-test.yml"), "alertname:");

    assertThat(alerts).isNotEmpty();
    assertThat(tested).containsAll(alerts);
  }

  private static Promtool promtool() {
    Promtool promtool = Promtool.find().orElse(null);
    assumeTrue(promtool != null, Promtool.MISSING);
    return promtool;
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
}
