package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The benchmark suite still runs: the quick mode of the end-to-end scenario on the build's stack.
 * It asserts that figures came out, never what they are: speed is measured, not tested.
 */
@HeraldIntegrationTest
class BenchSmokeIT {

  @Test
  void shouldPrintEveryFigureWhenTheEndToEndScenarioRunsQuick() throws Exception {
    Path reportDir = Path.of("target", "bench-smoke");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
    BenchMain main = new BenchMain(out);
    new CommandLine(main)
        .parseArgs("--quick", "--scenario", "B5", "--report-dir", reportDir.toString());

    List<ScenarioResult> results = main.run(List.of(BenchMain.scenarios().get("B5")));
    System.out.print(captured.toString(StandardCharsets.UTF_8));

    assertThat(results).hasSize(1);
    ScenarioResult b5 = results.get(0);
    assertThat(b5.figures())
        .containsKeys(
            "max_publications_per_second",
            "cpu_ms_per_publication_all",
            "cpu_bound_publications_per_second",
            "p99_ms_at_25",
            "p99_ms_at_50",
            "p99_ms_at_75",
            "cpu_ms_per_publication_at_25",
            "cpu_ms_per_publication_at_50",
            "cpu_ms_per_publication_at_75",
            "warm_cpu_ms_per_publication_at_50");
    assertThat(b5.figures().values()).allSatisfy(v -> assertThat(v).isPositive().isFinite());
    assertThat(b5.rows()).hasSize(4);
    assertThat(captured.toString(StandardCharsets.UTF_8)).contains("CPU-bound estimate");
    assertThat(BenchMain.section(b5, true)).contains("### B5", "| saturation");
  }
}
