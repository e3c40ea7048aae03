package io.herald.bench.e2e;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.Latency;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.demo.Showcase;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * B5: the whole pipeline a user runs, POST to the writer until the article reaches the destination
 * simulator (0 ms latency, the idempotent {@code dest-a}): the three processes as child JVMs with
 * the shipped files, on the embedded stack, everything on this machine.
 *
 * <ol>
 *   <li>Saturation: {@code clients} closed-loop clients send intents as fast as the writer answers;
 *       the highest sustainable rate is the destination's arrival rate while the clients were still
 *       sending (or between the 10th and 90th percentile of arrivals, if lower), and each process's
 *       CPU per publication is measured over the phase.
 *   <li>Latency at 25, 50 and 75 % of that rate, open loop: each intent is sent at its scheduled
 *       moment, and its latency counts from that moment, not from when a busy client got round to
 *       it, so coordinated omission cannot flatter the percentiles (HdrHistogram).
 *   <li>The CPU-bound estimate: the machine's cores divided by the CPU all processes together spend
 *       per publication, the rate the pipeline would reach if CPU were the only limit.
 * </ol>
 */
public final class EndToEndBenchmark implements Scenario {

  private static final int CLIENTS = 32;
  private static final double[] LOAD_FRACTIONS = {0.25, 0.50, 0.75};

  @Override
  public String id() {
    return "B5";
  }

  @Override
  public String title() {
    return "end to end, POST to the destination simulator at 0 ms latency, beside the CPU-bound"
        + " estimate";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int warmUp = bench.pick(2_000, 200);
    int saturation = bench.pick(20_000, 600);
    Duration latencyPhase = bench.pick(Duration.ofSeconds(60), Duration.ofSeconds(3));
    double probeBefore = PipelineBench.cpuProbeMillis();
    StackContext stack = bench.stack();
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = PipelineBench.settings(stack, simulator, bench, "b5");
      try (Pipeline pipeline = Pipeline.start(settings, overrides());
          PublicationLoad load = new PublicationLoad("b5", pipeline.writerUri(), simulator)) {
        ProcessGroup processes = PipelineBench.processes(pipeline, stack);
        bench.progress(id(), "pipeline up; warming up in rounds of " + warmUp + " intents", true);
        String warmedUp = warmUp(load, processes, warmUp, bench.pick(WARM_UP_ROUNDS, 1), bench);

        bench.progress(
            id(), "saturation: " + saturation + " intents, " + CLIENTS + " clients", true);
        Duration settleLimit = bench.pick(Duration.ofSeconds(90), Duration.ofSeconds(10));
        settle(processes, settleLimit, bench);
        Map<String, ProcessStats.Sample> before = processes.sample();
        PublicationLoad.Phase max = load.closedLoop("sat", saturation, CLIENTS, bench, id());
        // After the work the phase left behind (the status view catching up, vacuum): its cost.
        settle(processes, settleLimit, bench);
        Map<String, ProcessStats.Sample> after = processes.sample();
        // What the pipeline delivers while the writer takes intents too: the rate the open-loop
        // phases can sustain. The arrivals' own rate also counts the backlog drained after the
        // clients stopped, faster with the writer idle, and put 75 % of it past what holds.
        double maxRate = Math.min(max.sustainedRate(), max.whileSendingRate());
        // CPU seconds per 1,000 publications are CPU milliseconds per publication.
        Map<String, Double> cpuMsPerPublication =
            ProcessGroup.cpuSecondsPer1000(before, after, saturation);
        double totalCpuMs = total(cpuMsPerPublication);
        Map<String, Double> jitMsPerPublication =
            ProcessGroup.jitSecondsPer1000(before, after, saturation);
        int cores = Runtime.getRuntime().availableProcessors();
        double cpuBound = cores * 1000 / totalCpuMs;

        List<List<String>> rows = new ArrayList<>();
        rows.add(
            List.of(
                "saturation (" + CLIENTS + " clients, closed loop)",
                String.format("%.0f", max.offeredRate()),
                String.format("%.0f", maxRate),
                "-",
                "-",
                "-",
                "-",
                String.format("%.2f", totalCpuMs),
                String.format("%.2f", total(jitMsPerPublication))));
        Map<String, List<Charts.Point>> lines = new LinkedHashMap<>();
        for (String p : List.of("p50", "p90", "p99", "p99.9")) {
          lines.put(p, new ArrayList<>());
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("max_publications_per_second", maxRate);
        figures.put("cpu_ms_per_publication_all", totalCpuMs);
        figures.put("cpu_bound_publications_per_second", cpuBound);
        for (double fraction : LOAD_FRACTIONS) {
          double rate = Math.max(1, maxRate * fraction);
          bench.progress(
              id(),
              String.format(
                  "open loop at %.0f %% of the maximum: %.0f intents/s for %d s",
                  fraction * 100, rate, latencyPhase.toSeconds()),
              true);
          Map<String, ProcessStats.Sample> phaseStart = processes.sample();
          PublicationLoad.Phase phase =
              load.openLoop("o" + (int) (fraction * 100), rate, latencyPhase, bench, id());
          settle(processes, settleLimit, bench);
          Map<String, ProcessStats.Sample> phaseEnd = processes.sample();
          double phaseCpuMs =
              total(ProcessGroup.cpuSecondsPer1000(phaseStart, phaseEnd, phase.count()));
          double phaseJitMs =
              total(ProcessGroup.jitSecondsPer1000(phaseStart, phaseEnd, phase.count()));
          Histogram h = phase.latencies();
          rows.add(
              List.of(
                  String.format("open loop, %.0f %%", fraction * 100),
                  String.format("%.0f", rate),
                  String.format("%.0f", phase.sustainedRate()),
                  oneDecimal(Latency.ms(h, 50)),
                  oneDecimal(Latency.ms(h, 99)),
                  oneDecimal(Latency.ms(h, 99.9)),
                  oneDecimal(Latency.maxMs(h)),
                  String.format("%.2f", phaseCpuMs),
                  String.format("%.2f", phaseJitMs)));
          lines.get("p50").add(new Charts.Point(rate, Latency.ms(h, 50)));
          lines.get("p90").add(new Charts.Point(rate, Latency.ms(h, 90)));
          lines.get("p99").add(new Charts.Point(rate, Latency.ms(h, 99)));
          lines.get("p99.9").add(new Charts.Point(rate, Latency.ms(h, 99.9)));
          figures.put("p99_ms_at_" + (int) (fraction * 100), Latency.ms(h, 99));
          figures.put("cpu_ms_per_publication_at_" + (int) (fraction * 100), phaseCpuMs);
          figures.put(
              "warm_cpu_ms_per_publication_at_" + (int) (fraction * 100), phaseCpuMs - phaseJitMs);
        }
        Map<String, ProcessStats.Sample> end = processes.sample();

        List<String> notes = new ArrayList<>();
        StringBuilder cpu =
            new StringBuilder(
                "CPU per publication over the saturation phase (until the pipeline was quiet"
                    + " again):");
        cpuMsPerPublication.forEach(
            (name, ms) -> cpu.append(String.format(" %s %.2f ms,", name, ms)));
        notes.add(cpu.append(String.format(" all %.2f ms (goal <= 2 ms)", totalCpuMs)).toString());
        StringBuilder jit =
            new StringBuilder("Of it, JIT compilation (the JVMs' compiler threads):");
        jitMsPerPublication.forEach(
            (name, ms) -> {
              if (ms > 0) {
                jit.append(String.format(" %s %.2f ms,", name, ms));
              }
            });
        notes.add(jit.append(String.format(" all %.2f ms", total(jitMsPerPublication))).toString());
        notes.add(
            String.format(
                "CPU-bound estimate: %d cores / %.2f ms = %.0f publications/s; measured %.0f (%.2f of"
                    + " it; goal >= 1,000 publications/s)",
                cores, totalCpuMs, cpuBound, maxRate, maxRate / cpuBound));
        StringBuilder rss = new StringBuilder("Peak RSS:");
        end.forEach(
            (name, sample) ->
                rss.append(String.format(" %s %d MiB,", name, sample.peakRssBytes() >> 20)));
        notes.add(rss.substring(0, rss.length() - 1));
        notes.add("p99 POST to destination at 50 %: goal <= 100 ms.");
        notes.add(warmedUp);
        if (load.shed() > 0) {
          notes.add(
              load.shed()
                  + " sends were answered 503 by the writer (shedding load) and sent again after"
                  + " its Retry-After; their latency counts from the first intended moment");
        }
        notes.add(
            "CPU ms/publication: every process's CPU (writer, relay, consumer, PostgreSQL, Kafka)"
                + " from a quiet pipeline until it is quiet again after the phase (the status view's"
                + " catching up included), divided by the phase's publications; at a fixed rate"
                + " there is no backlog to batch, so it is the cost of that rate. Of which JIT:"
                + " the part the JVMs' JIT compiler threads used; while it is high the JVMs are"
                + " still warming up (the broker, started before the run, compiles its hot paths"
                + " only under this load), and the CPU without it is the warm cost.");
        List<Path> plots = new ArrayList<>();
        Charts.lines(
                bench.reportDir().resolve("b5-latency.png"),
                "B5: POST to destination latency against offered load (open loop)",
                "offered load (publications/s)",
                "latency (ms)",
                lines)
            .ifPresent(plots::add);
        Map<String, Double> bars = new LinkedHashMap<>();
        bars.put("measured maximum", maxRate);
        bars.put("CPU-bound estimate", cpuBound);
        bars.put("goal", 1000.0);
        Charts.bars(
                bench.reportDir().resolve("b5-throughput.png"),
                "B5: publications/s end to end",
                "publications/s",
                bars)
            .ifPresent(plots::add);
        double probeAfter = PipelineBench.cpuProbeMillis();
        return new ScenarioResult(
            id(),
            title(),
            String.format(
                "Workload: one intent per article (tenants t1 and t2), revision r-1, to %s (0 ms,"
                    + " honours the key); ~120-byte content; publication topic of 3 partitions;"
                    + " the shipped property files%s; %d cores, %s, load average before the run"
                    + " %s; CPU probe (one thread's CPU for a fixed SHA-256 workload: the machine's"
                    + " speed at the time, lower is faster) %.0f ms before the run, %.0f ms after.",
                PublicationLoad.DESTINATION,
                overrides().isEmpty() ? "" : " with " + overrides(),
                cores,
                PipelineBench.memory(),
                PipelineBench.loadAverage(),
                probeBefore,
                probeAfter),
            List.of(
                "phase",
                "offered/s",
                "published/s",
                "p50 ms",
                "p99 ms",
                "p99.9 ms",
                "max ms",
                "CPU ms/publication",
                "of which JIT ms"),
            rows,
            notes,
            plots,
            figures);
      }
    }
  }

  /** At most this many warm-up rounds in a full run; a quick run has one. */
  private static final int WARM_UP_ROUNDS = 12;

  /**
   * The JVMs count as warm once their compiler threads used less than this share of a warm-up
   * round's CPU (all processes together): the share the last, warm phase of the runs before showed
   * was about 4 %, the first phases after a fixed 2,000-intent warm-up a third.
   */
  private static final double WARM_JIT_SHARE = 0.08;

  /**
   * Closed-loop rounds of {@code roundSize} intents until the JIT's share of a round's CPU falls
   * below {@link #WARM_JIT_SHARE}, at most {@code maxRounds}: a fixed count either wastes minutes
   * or, as 2,000 intents did, leaves a third of the next phase's CPU to compilation.
   *
   * @return a note saying how the warm-up ended
   */
  private String warmUp(
      PublicationLoad load, ProcessGroup processes, int roundSize, int maxRounds, Bench bench)
      throws Exception {
    double share = 1;
    int round = 0;
    while (round < maxRounds && share >= WARM_JIT_SHARE) {
      round++;
      Map<String, ProcessStats.Sample> before = processes.sample();
      load.closedLoop("warm" + round, roundSize, CLIENTS, bench, id());
      Map<String, ProcessStats.Sample> after = processes.sample();
      share =
          total(ProcessGroup.jitSecondsPer1000(before, after, roundSize))
              / Math.max(1e-9, total(ProcessGroup.cpuSecondsPer1000(before, after, roundSize)));
      bench.progress(
          id(),
          String.format(
              "warm-up round %d: the JIT used %.0f %% of its CPU (warm below %.0f %%)",
              round, share * 100, WARM_JIT_SHARE * 100),
          true);
    }
    return String.format(
        "Warm-up: %d closed-loop round(s) of %d intents; in the last the JIT compilers used %.0f %%"
            + " of all processes' CPU (%s below %.0f %%)",
        round,
        roundSize,
        share * 100,
        share < WARM_JIT_SHARE ? "warm:" : "stopped at the round limit, not",
        WARM_JIT_SHARE * 100);
  }

  /** Below this many cores busy in all processes together, the pipeline counts as quiet. */
  private static final double QUIET_CORES = 0.15;

  /**
   * Waits until the processes are quiet (less than {@link #QUIET_CORES} over a second), at most
   * {@code limit}: so that a phase's CPU is what it caused, including the work it left behind (the
   * status view catching up, autovacuum), and not what the phase before it left.
   */
  private static void settle(ProcessGroup processes, Duration limit, Bench bench)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    Map<String, ProcessStats.Sample> last = processes.sample();
    while (System.nanoTime() < deadline) {
      // A second of CPU time is the measure: nothing to wait on but the processes' own work.
      Thread.sleep(1000);
      Map<String, ProcessStats.Sample> now = processes.sample();
      // Per 1,000 of 1,000 "events": the CPU seconds of that second.
      if (total(ProcessGroup.cpuSecondsPer1000(last, now, 1000)) < QUIET_CORES) {
        return;
      }
      last = now;
    }
    bench.progress(
        "B5", "the processes were not quiet within " + limit + "; measuring anyway", true);
  }

  private static double total(Map<String, Double> perProcess) {
    return perProcess.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  /**
   * {@code -Dherald.bench.b5.env=NAME=VALUE,...}: environment overrides for the processes (the
   * documented {@code HERALD_*} variables, each to the process it configures), to compare a setting
   * with its default run by run; none by default (the shipped files as they are).
   */
  static Map<String, String> overrides() {
    Map<String, String> overrides = new LinkedHashMap<>();
    String spec = System.getProperty("herald.bench.b5.env", "");
    for (String pair : spec.split(",")) {
      if (!pair.isBlank()) {
        int eq = pair.indexOf('=');
        overrides.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    return overrides;
  }

  private static String oneDecimal(double ms) {
    return String.format("%.1f", ms);
  }
}
