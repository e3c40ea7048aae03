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

    List<ScenarioResult> results = main.run(List.of(main.scenarios().get("B5")));
    System.out.print(captured.toString(StandardCharsets.UTF_8));

    assertThat(results).hasSize(1);
    ScenarioResult b5 = results.get(0);
    assertThat(b5.figures())
        .containsKeys(
            "max_publications_per_second",
            "published_per_second_while_clients_send",
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
    // Saturation, the sustainable rate's probes (one in a quick run), the three latency phases.
    assertThat(b5.rows()).hasSize(5);
    assertThat(b5.rows().get(0).get(0)).startsWith("saturation");
    assertThat(b5.rows().get(1).get(0)).startsWith("probe 1, open loop");
    assertThat(b5.rows().subList(2, 5))
        .allSatisfy(row -> assertThat(row.get(0)).startsWith("open loop, "));
    assertThat(captured.toString(StandardCharsets.UTF_8)).contains("CPU-bound estimate");
    assertThat(BenchMain.section(b5, true)).contains("### B5", "| saturation");
  }
}
