package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The suite's command line: what it refuses before any stack starts, and what it records. */
class BenchMainTest {

  @Test
  void shouldRefuseAnEnvironmentOverrideThatIsNotAHeraldSetting() {
    Run run = run("--scenario", "B5", "--b5-env", "PATH=/tmp");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--b5-env PATH: not a Herald setting");
  }

  @Test
  void shouldRefuseAnOverrideWithoutAValueAndALatencyBaseThatIsNotAboveZero() {
    assertThat(run("--b5-env", "HERALD_RELAY_SINK_LINGER").exit()).isEqualTo(2);
    Run zero = run("--scenario", "B5", "--b5-latency-base", "0");

    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.err()).contains("--b5-latency-base must be above 0");
  }

  @Test
  void shouldRefuseAnUnknownScenarioNamingTheKnownOnes() {
    Run run = run("--scenario", "B9");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("unknown scenario 'B9'").contains("B1").contains("B8");
  }

  @Test
  void shouldPutTheOptionsThatShapedB5IntoTheCommandOfItsSection() {
    BenchMain main = new BenchMain(new PrintStream(new ByteArrayOutputStream()));
    new CommandLine(main)
        .parseArgs(
            "--scenario",
            "B5",
            "--b5-env",
            "HERALD_RELAY_SINK_LINGER=0ms",
            "--b5-latency-base",
            "320");
    ScenarioResult b5 = result("B5");
    ScenarioResult b3 = result("B3");

    assertThat(main.section(b5))
        .contains(
            "-Dbench.args='--scenario B5 --b5-env HERALD_RELAY_SINK_LINGER=0ms"
                + " --b5-latency-base 320'");
    assertThat(main.section(b3)).contains("-Dbench.args='--scenario B3'");
  }

  private static ScenarioResult result(String id) {
    return new ScenarioResult(
        id,
        "title",
        "workload",
        List.of("a"),
        List.of(List.of("1")),
        List.of(),
        List.of(),
        Map.of());
  }

  private record Run(int exit, String err) {}

  private static Run run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine command =
        new CommandLine(
            new BenchMain(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
    command.setErr(new PrintWriter(err));
    return new Run(command.execute(args), err.toString());
  }
}
