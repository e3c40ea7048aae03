package io.herald.bench.suite;

import io.herald.bench.cli.AuditBenchmark;
import io.herald.bench.e2e.ConsumerScaleBenchmark;
import io.herald.bench.e2e.EndToEndBenchmark;
import io.herald.bench.e2e.MemoryOutageBenchmark;
import io.herald.bench.relay.ConnectBesideRelayBenchmark;
import io.herald.bench.relay.RelayServerLimitBenchmark;
import io.herald.bench.writer.WriterPgbenchBenchmark;
import io.herald.bench.writer.WriterSlotBenchmark;
import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The benchmark suite's entry point (issue 16): starts the embedded stack, runs the chosen
 * scenarios one after another, prints each table, draws the plots and, when asked, writes the
 * sections of BENCHMARKS.md. Benchmarks print figures and assert nothing.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Runs Herald's benchmarks on the embedded stack and prints their figures.",
      "Exit codes: 0 every scenario ran, 1 a scenario failed, 2 bad usage."
    })
public final class BenchMain implements Callable<Integer> {

  /** Every scenario, by id, in the order a full run takes them, with this run's options. */
  Map<String, Scenario> scenarios() {
    Map<String, Scenario> all = new LinkedHashMap<>();
    for (Scenario scenario :
        List.<Scenario>of(
            new RelayServerLimitBenchmark(),
            new ConnectBesideRelayBenchmark(),
            new WriterSlotBenchmark(),
            new WriterPgbenchBenchmark(),
            new EndToEndBenchmark(b5Env, b5LatencyBase()),
            new ConsumerScaleBenchmark(),
            new MemoryOutageBenchmark(),
            new AuditBenchmark())) {
      all.put(scenario.id(), scenario);
    }
    return all;
  }

  @Option(
      names = "--quick",
      description = "Every scenario small: the whole run in under three minutes.")
  boolean quick;

  @Option(
      names = "--scenario",
      split = ",",
      paramLabel = "ID",
      description = "Scenarios to run, B1 to B8 (default: all).")
  List<String> only = new ArrayList<>();

  @Option(
      names = "--pg-statements",
      description =
          "Preload pg_stat_statements into the stack's PostgreSQL and print each scenario's"
              + " costliest statements after it, and log the plan of every statement of 50 ms or"
              + " more and every autovacuum and autoanalyze to the stack's postgres.log"
              + " (profiling: it costs every statement).")
  boolean pgStatements;

  @Option(
      names = "--report-dir",
      paramLabel = "DIR",
      description = "Where the plots and report.md go (default: ${DEFAULT-VALUE}).")
  Path reportDir = Path.of("target", "bench-report");

  @Option(
      names = "--write-benchmarks-md",
      paramLabel = "FILE",
      description = "Replace each scenario's section of this BENCHMARKS.md with this run's.")
  Path benchmarksMd;

  @Option(
      names = "--b5-env",
      paramLabel = "NAME=VALUE",
      description =
          "B5: an environment override for the pipeline's processes, a documented HERALD_*"
              + " variable reaching the process it configures (repeatable), to compare a setting"
              + " with its default run by run.")
  Map<String, String> b5Env = new LinkedHashMap<>();

  @Option(
      names = "--b5-latency-base",
      paramLabel = "PER_SECOND",
      description =
          "B5: run the open-loop phases at 25/50/75 %% of this rate instead of the highest"
              + " sustainable rate measured, so that two settings compare at the same rates.")
  Double b5LatencyBase;

  /** The command line running this one: its usage errors go to its own error stream. */
  @Spec CommandSpec spec;

  private static final int STATEMENTS_SHOWN = 20;

  private final PrintStream out;

  BenchMain(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    int exit = new CommandLine(new BenchMain(System.out)).execute(args);
    // The stack's shutdown hook stops PostgreSQL and Kafka; client threads must not keep us up.
    System.exit(exit);
  }

  private OptionalDouble b5LatencyBase() {
    return b5LatencyBase == null ? OptionalDouble.empty() : OptionalDouble.of(b5LatencyBase);
  }

  @Override
  public Integer call() throws Exception {
    for (String name : b5Env.keySet()) {
      if (!name.startsWith("HERALD_")) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--b5-env " + name + ": not a Herald setting (HERALD_* variables only)");
      }
    }
    if (b5LatencyBase != null && !(b5LatencyBase > 0)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--b5-latency-base must be above 0, was " + b5LatencyBase);
    }
    Map<String, Scenario> all = scenarios();
    List<Scenario> chosen = new ArrayList<>();
    for (String id : only.isEmpty() ? List.copyOf(all.keySet()) : only) {
      Scenario scenario = all.get(id.trim().toUpperCase());
      if (scenario == null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "unknown scenario '" + id + "'; known: " + all.keySet());
      }
      chosen.add(scenario);
    }
    Files.createDirectories(reportDir);
    if (pgStatements) {
      // Read once, when the stack starts (on the first scenario's first use).
      System.setProperty(HeraldStack.PG_STAT_STATEMENTS_PROPERTY, "true");
    }
    List<ScenarioResult> results = run(chosen);
    StringBuilder report = new StringBuilder();
    for (ScenarioResult result : results) {
      report.append(section(result)).append('\n');
      if (benchmarksMd != null) {
        BenchmarksMd.write(benchmarksMd, result.id(), section(withPlotsBeside(result)));
      }
    }
    Files.writeString(reportDir.resolve("report.md"), report);
    out.printf("%nReport: %s%n", reportDir.resolve("report.md").toAbsolutePath());
    return results.size() == chosen.size() ? 0 : 1;
  }

  /** Runs each scenario; one that fails is reported and ends the run (the stack may be hurt). */
  List<ScenarioResult> run(List<Scenario> chosen) {
    Bench bench = new Bench(quick, reportDir, out);
    List<ScenarioResult> results = new ArrayList<>();
    for (Scenario scenario : chosen) {
      out.printf("%n== %s: %s%s%n", scenario.id(), scenario.title(), quick ? " (quick)" : "");
      long start = System.nanoTime();
      try {
        PostgresServer postgres = HeraldStack.shared().postgres();
        Set<String> before = ScenarioLeftovers.databases(postgres);
        if (pgStatements) {
          PgStatements.reset(postgres);
        }
        ScenarioResult result = scenario.run(bench);
        out.printf(
            "%n%s (%s)%n%s%n",
            scenario.id(),
            Duration.ofNanos(System.nanoTime() - start).toSeconds() + " s",
            result.plainTable());
        result.notes().forEach(note -> out.println("  " + note));
        if (pgStatements) {
          PgStatements.print(postgres, STATEMENTS_SHOWN, out);
        }
        results.add(result);
        // Its rows would bring autovacuum into the next scenario's window (ScenarioLeftovers).
        Set<String> created = new TreeSet<>(ScenarioLeftovers.databases(postgres));
        created.removeAll(before);
        bench.progress(scenario.id(), ScenarioLeftovers.drop(postgres, created), true);
      } catch (Exception e) {
        out.printf("%s failed: %s%n", scenario.id(), e);
        e.printStackTrace(out);
        break;
      }
    }
    return results;
  }

  /** The plots copied to {@code docs/bench/} beside BENCHMARKS.md, linked from there. */
  private ScenarioResult withPlotsBeside(ScenarioResult result) throws java.io.IOException {
    Path root = benchmarksMd.toAbsolutePath().getParent();
    Path dir = root.resolve("docs").resolve("bench");
    Files.createDirectories(dir);
    List<Path> linked = new ArrayList<>();
    for (Path plot : result.plots()) {
      Path copy = dir.resolve(plot.getFileName());
      Files.copy(plot, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      linked.add(root.relativize(copy));
    }
    return new ScenarioResult(
        result.id(),
        result.title(),
        result.workload(),
        result.header(),
        result.rows(),
        result.notes(),
        linked,
        result.figures());
  }

  static String section(ScenarioResult result, boolean quick) {
    return section(result, quick, "");
  }

  /** The scenario's section, its command giving every option of this run that shaped it. */
  String section(ScenarioResult result) {
    return section(result, quick, optionsOf(result));
  }

  /** The options besides {@code --scenario} and {@code --quick} that shaped this scenario's run. */
  private String optionsOf(ScenarioResult result) {
    if (!result.id().equals("B5")) {
      return "";
    }
    StringBuilder options = new StringBuilder();
    b5Env.forEach(
        (name, value) -> options.append(" --b5-env ").append(name).append('=').append(value));
    b5LatencyBase()
        .ifPresent(
            base -> options.append(" --b5-latency-base ").append(String.format("%.0f", base)));
    return options.toString();
  }

  static String section(ScenarioResult result, boolean quick, String options) {
    StringBuilder md = new StringBuilder();
    md.append("### ").append(result.id()).append(": ").append(result.title()).append("\n\n");
    md.append("Run ")
        .append(Instant.now().toString().substring(0, 16).replace('T', ' '))
        .append(" UTC")
        .append(quick ? " (quick mode: small, not a measurement to quote)" : "")
        .append(" with `./mvnw -B -o -pl bench -am -Pbenchmark verify -DskipTests")
        .append(" -Dbench.main=io.herald.bench.suite.BenchMain")
        .append(" -Dbench.args='--scenario ")
        .append(result.id())
        .append(quick ? " --quick" : "")
        .append(options)
        .append("'`. ")
        .append(result.workload())
        .append("\n\n");
    md.append(result.markdownTable()).append('\n');
    for (String note : result.notes()) {
      md.append("- ").append(note).append('\n');
    }
    for (Path plot : result.plots()) {
      md.append("\n![").append(plot.getFileName()).append("](").append(plot).append(")\n");
    }
    return md.toString();
  }
}
