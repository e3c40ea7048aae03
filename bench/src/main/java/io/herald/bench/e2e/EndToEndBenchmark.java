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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * B5: the whole pipeline a user runs, POST to the writer until the article reaches the destination
 * simulator (0 ms latency, the idempotent {@code dest-a}): the three processes as child JVMs with
 * the shipped files, on the embedded stack, everything on this machine.
 *
 * <ol>
 *   <li>Saturation: {@code clients} closed-loop clients send intents as fast as the writer answers;
 *       each process's CPU per publication is measured over the phase, and the destination's
 *       arrival rate while the clients were still sending is where the next step starts.
 *   <li>The highest sustainable rate: open-loop probes, up while one keeps up and down while none
 *       has, then between the two ({@link #probeSustainableRate}).
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

  private final Map<String, String> env;
  private final OptionalDouble latencyBase;

  /**
   * @param env environment overrides for the pipeline's processes (documented {@code HERALD_*}
   *     variables, each reaching the process it configures), to compare a setting with its default
   *     run by run; empty runs the shipped files as they are
   * @param latencyBase if present, the open-loop phases run at their fractions of this rate instead
   *     of the highest sustainable rate measured, so that two settings compare at the same rates
   *     (the maximum moves by a quarter between runs on this machine)
   */
  public EndToEndBenchmark(Map<String, String> env, OptionalDouble latencyBase) {
    this.env = Map.copyOf(env);
    this.latencyBase = latencyBase;
  }

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
    Duration latencyPhase = bench.pick(Duration.ofSeconds(60), Duration.ofSeconds(2));
    double probeBefore = PipelineBench.cpuProbeMillis();
    StackContext stack = StackContext.create(EndToEndBenchmark.class);
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = PipelineBench.settings(stack, simulator, bench, "b5");
      try (Pipeline pipeline = Pipeline.start(settings, env);
          PublicationLoad load = new PublicationLoad("b5", pipeline.writerUri(), simulator)) {
        ProcessGroup processes = PipelineBench.processes(pipeline, stack);
        // Not one of the pipeline's: the clients, the open-loop sender and the destination
        // simulator, whose CPU shares the machine's cores with it.
        ProcessGroup generator =
            new ProcessGroup().add("load generator", ProcessHandle.current().pid(), false);
        bench.progress(id(), "pipeline up; warming up in rounds of " + warmUp + " intents", true);
        String warmedUp = warmUp(load, processes, warmUp, bench.pick(WARM_UP_ROUNDS, 1), bench);

        bench.progress(
            id(), "saturation: " + saturation + " intents, " + CLIENTS + " clients", true);
        Duration settleLimit = bench.pick(Duration.ofSeconds(90), Duration.ofSeconds(10));
        settle(processes, settleLimit, bench);
        Map<String, ProcessStats.Sample> before = processes.sample();
        Map<String, ProcessStats.Sample> generatorBefore = generator.sample();
        PublicationLoad.Phase max = load.closedLoop("sat", saturation, CLIENTS, bench, id());
        double generatorMs =
            total(ProcessGroup.cpuSecondsPer1000(generatorBefore, generator.sample(), saturation));
        // After the work the phase left behind (the status view catching up, vacuum): its cost.
        settle(processes, settleLimit, bench);
        Map<String, ProcessStats.Sample> after = processes.sample();
        // What the pipeline delivers while the writer takes intents too. The arrivals' own rate
        // also counts the backlog drained after the clients stopped, faster with the writer idle.
        double whileSending = Math.min(max.sustainedRate(), max.whileSendingRate());
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
                String.format("%.0f", whileSending),
                "-",
                "-",
                "-",
                "-",
                String.format("%.2f", totalCpuMs),
                String.format("%.2f", total(jitMsPerPublication))));
        List<Measured> probes =
            probeSustainableRate(
                load,
                processes,
                generator,
                whileSending,
                max.offeredRate(),
                bench.pick(PROBE, Duration.ofSeconds(3)),
                bench.pick(MAX_PROBES, 1),
                settleLimit,
                bench);
        for (int i = 0; i < probes.size(); i++) {
          Measured probe = probes.get(i);
          rows.add(
              row(
                  String.format(
                      "probe %d, open loop: %s", i + 1, probe.keptUp() ? "kept up" : "fell behind"),
                  probe.rate(),
                  probe.phase(),
                  probe.cpuMs(),
                  probe.jitMs()));
        }
        Measured sustained =
            probes.stream()
                .filter(Measured::keptUp)
                .max(Comparator.comparingDouble(Measured::rate))
                .orElse(null);
        // None kept up (a quick run on a busy machine): the lowest rate probed bounds it above.
        double maxRate =
            sustained != null
                ? sustained.rate()
                : probes.stream().mapToDouble(Measured::rate).min().orElse(whileSending);
        Map<String, List<Charts.Point>> lines = new LinkedHashMap<>();
        for (String p : List.of("p50", "p90", "p99", "p99.9")) {
          lines.put(p, new ArrayList<>());
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("max_publications_per_second", maxRate);
        figures.put("published_per_second_while_clients_send", whileSending);
        if (sustained != null) {
          figures.put("cpu_ms_per_publication_at_max", sustained.cpuMs());
          figures.put("warm_cpu_ms_per_publication_at_max", sustained.cpuMs() - sustained.jitMs());
        }
        figures.put("cpu_ms_per_publication_all", totalCpuMs);
        figures.put("cpu_bound_publications_per_second", cpuBound);
        List<String> phaseCpuNotes = new ArrayList<>();
        for (double fraction : LOAD_FRACTIONS) {
          double rate = Math.max(1, latencyBase.orElse(maxRate) * fraction);
          bench.progress(
              id(),
              String.format(
                  "open loop at %.0f %% of the maximum: %.0f intents/s for %d s",
                  fraction * 100, rate, latencyPhase.toSeconds()),
              true);
          Measured measured =
              measure(
                  load,
                  processes,
                  generator,
                  "o" + (int) (fraction * 100),
                  rate,
                  latencyPhase,
                  settleLimit,
                  bench);
          double phaseCpuMs = measured.cpuMs();
          phaseCpuNotes.add(
              String.format("at %.0f/s %s", rate, perProcess(measured.cpuMsPerProcess())));
          Histogram h = measured.phase().latencies();
          rows.add(
              row(
                  String.format("open loop, %.0f %%", fraction * 100),
                  rate,
                  measured.phase(),
                  phaseCpuMs,
                  measured.jitMs()));
          lines.get("p50").add(new Charts.Point(rate, Latency.ms(h, 50)));
          lines.get("p90").add(new Charts.Point(rate, Latency.ms(h, 90)));
          lines.get("p99").add(new Charts.Point(rate, Latency.ms(h, 99)));
          lines.get("p99.9").add(new Charts.Point(rate, Latency.ms(h, 99.9)));
          figures.put("p99_ms_at_" + (int) (fraction * 100), Latency.ms(h, 99));
          figures.put("cpu_ms_per_publication_at_" + (int) (fraction * 100), phaseCpuMs);
          figures.put(
              "warm_cpu_ms_per_publication_at_" + (int) (fraction * 100),
              phaseCpuMs - measured.jitMs());
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
            "CPU per publication by process in the open-loop phases: "
                + String.join("; ", phaseCpuNotes));
        notes.add(
            String.format(
                "Beside them, the load generator (this JVM: the clients and the destination"
                    + " simulator) used %.2f ms per publication over the saturation phase%s",
                generatorMs,
                sustained == null
                    ? "."
                    : String.format(
                        "; at the highest sustainable rate (%.0f/s), %s, and the load generator"
                            + " %.2f ms: %.2f of the machine's %d cores busy",
                        sustained.rate(),
                        perProcess(sustained.cpuMsPerProcess()),
                        sustained.generatorMs(),
                        (sustained.cpuMs() + sustained.generatorMs()) * sustained.rate() / 1000,
                        cores)));
        notes.add(
            String.format(
                "CPU-bound estimate: %d cores / %.2f ms = %.0f publications/s; highest sustainable"
                    + " rate %.0f (%.2f of it; goal >= 1,000 publications/s)",
                cores, totalCpuMs, cpuBound, maxRate, maxRate / cpuBound));
        StringBuilder rss = new StringBuilder("Peak RSS:");
        end.forEach(
            (name, sample) ->
                rss.append(String.format(" %s %d MiB,", name, sample.peakRssBytes() >> 20)));
        notes.add(rss.substring(0, rss.length() - 1));
        notes.add("p99 POST to destination at 50 %: goal <= 100 ms.");
        notes.add(warmedUp);
        notes.add(
            String.format(
                "Highest sustainable rate: open-loop probes of %d s from the rate published while"
                    + " the clients sent, up by %.2f× while one kept up (at most the writer's"
                    + " closed-loop rate), down by it while none had, then between the highest that"
                    + " kept up and the lowest that fell behind until they were within %.0f %%, at"
                    + " most %d probes; a probe kept up when"
                    + " its arrivals came at %.0f %% of the offered rate or more and the median"
                    + " latency of its last fifth stayed under %.0f ms (a backlog growing through"
                    + " the probe makes its last intents the slowest). %s",
                bench.pick(PROBE, Duration.ofSeconds(3)).toSeconds(),
                PROBE_STEP,
                (PROBE_RESOLUTION - 1) * 100,
                bench.pick(MAX_PROBES, 1),
                KEPT_UP_ARRIVALS * 100,
                KEPT_UP_LAST_FIFTH_P50_MS,
                sustained != null
                    ? String.format(
                        "At %.0f/s: CPU %.2f ms per publication, %.2f without the JIT.",
                        sustained.rate(), sustained.cpuMs(), sustained.cpuMs() - sustained.jitMs())
                    : "No probe kept up: the lowest rate probed is given as the maximum."));
        if (load.shed() > 0) {
          notes.add(
              load.shed()
                  + " sends were answered 503 by the writer (shedding load) and sent again after"
                  + " its Retry-After; their latency counts from the first intended moment");
        }
        if (load.resent() > 0) {
          notes.add(
              load.resent()
                  + " sends failed on their connection (reset) and were sent again on a new one;"
                  + " their latency counts from the first intended moment");
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
        bars.put("highest sustainable rate", maxRate);
        bars.put("published while " + CLIENTS + " clients send", whileSending);
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
                (env.isEmpty() ? "" : " with " + new TreeMap<>(env))
                    + (latencyBase.isEmpty()
                        ? ""
                        : String.format(
                            "; open-loop phases at fractions of %.0f/s (--b5-latency-base)",
                            latencyBase.getAsDouble())),
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

  /** How long each open-loop probe of the sustainable rate offers its rate in a full run. */
  private static final Duration PROBE = Duration.ofSeconds(15);

  /** At most this many probes in a full run. */
  private static final int MAX_PROBES = 6;

  /** The factor between one probe's rate and the next while the search goes up or down. */
  private static final double PROBE_STEP = 1.25;

  /**
   * A probe kept up only if its arrivals came at this share of the offered rate or more (between
   * their 10th and 90th percentile).
   */
  private static final double KEPT_UP_ARRIVALS = 0.95;

  /**
   * ... and the median latency of the intents scheduled in its last fifth stayed under this: 5 %
   * too much load for 15 s leaves the last intents about 0.7 s behind, while a rate the pipeline
   * holds keeps them at its usual tens of milliseconds, a stall of a second moving the median
   * little.
   */
  private static final double KEPT_UP_LAST_FIFTH_P50_MS = 500;

  /** Below this ratio of the lowest rate that fell behind to the highest that kept up, stop. */
  private static final double PROBE_RESOLUTION = 1.1;

  /**
   * One open-loop phase at a fixed rate and what it cost: each process's CPU per publication (from
   * a quiet pipeline until it was quiet again), the JIT's part of it, and the load generator's.
   */
  private record Measured(
      double rate,
      PublicationLoad.Phase phase,
      Map<String, Double> cpuMsPerProcess,
      double jitMs,
      double generatorMs) {

    double cpuMs() {
      return total(cpuMsPerProcess);
    }

    /** As a probe of the sustainable rate: did the pipeline keep up with it? */
    boolean keptUp() {
      return phase.sustainedRate() >= KEPT_UP_ARRIVALS * rate
          && Latency.ms(phase.lastFifth(), 50) < KEPT_UP_LAST_FIFTH_P50_MS;
    }
  }

  /**
   * Offers {@code rate} intents a second, open loop, for {@code duration}, and measures the phase
   * from a quiet pipeline until it is quiet again.
   */
  private Measured measure(
      PublicationLoad load,
      ProcessGroup processes,
      ProcessGroup generator,
      String label,
      double rate,
      Duration duration,
      Duration settleLimit,
      Bench bench)
      throws Exception {
    settle(processes, settleLimit, bench);
    Map<String, ProcessStats.Sample> before = processes.sample();
    Map<String, ProcessStats.Sample> generatorBefore = generator.sample();
    PublicationLoad.Phase phase = load.openLoop(label, rate, duration, bench, id());
    settle(processes, settleLimit, bench);
    Map<String, ProcessStats.Sample> after = processes.sample();
    return new Measured(
        rate,
        phase,
        ProcessGroup.cpuSecondsPer1000(before, after, phase.count()),
        total(ProcessGroup.jitSecondsPer1000(before, after, phase.count())),
        total(ProcessGroup.cpuSecondsPer1000(generatorBefore, generator.sample(), phase.count())));
  }

  /**
   * The highest rate the pipeline sustains, searched with open-loop probes: the rate published
   * while the closed-loop clients sent is only where to start, since those clients kept the writer
   * busier than a rate the pipeline holds would, and took the CPU the later stages needed.
   *
   * @param start the first rate probed
   * @param cap the highest rate probed: the writer's closed-loop rate, past which the writer itself
   *     is the limit
   * @return every probe, in the order run
   */
  private List<Measured> probeSustainableRate(
      PublicationLoad load,
      ProcessGroup processes,
      ProcessGroup generator,
      double start,
      double cap,
      Duration probe,
      int maxProbes,
      Duration settleLimit,
      Bench bench)
      throws Exception {
    List<Measured> probes = new ArrayList<>();
    double keptUp = 0;
    double fellBehind = Double.POSITIVE_INFINITY;
    double rate = Math.min(Math.max(1, start), cap);
    while (probes.size() < maxProbes) {
      bench.progress(
          id(),
          String.format(
              "probe %d of the sustainable rate: %.0f intents/s for %d s",
              probes.size() + 1, rate, probe.toSeconds()),
          true);
      Measured done =
          measure(
              load,
              processes,
              generator,
              "p" + (probes.size() + 1),
              rate,
              probe,
              settleLimit,
              bench);
      probes.add(done);
      bench.progress(
          id(),
          String.format(
              "probe %d at %.0f/s %s: published %.0f/s, last fifth's p50 %.0f ms",
              probes.size(),
              rate,
              done.keptUp() ? "kept up" : "fell behind",
              done.phase().sustainedRate(),
              Latency.ms(done.phase().lastFifth(), 50)),
          true);
      if (done.keptUp()) {
        keptUp = Math.max(keptUp, rate);
      } else {
        fellBehind = Math.min(fellBehind, rate);
      }
      if (fellBehind == Double.POSITIVE_INFINITY) {
        if (rate >= cap) {
          break;
        }
        rate = Math.min(cap, rate * PROBE_STEP);
      } else if (keptUp == 0) {
        rate = rate / PROBE_STEP;
      } else if (fellBehind / keptUp <= PROBE_RESOLUTION) {
        break;
      } else {
        rate = Math.sqrt(keptUp * fellBehind);
      }
    }
    return probes;
  }

  private static String perProcess(Map<String, Double> cpuMs) {
    StringBuilder text = new StringBuilder();
    cpuMs.forEach((name, ms) -> text.append(String.format("%s %.2f ms, ", name, ms)));
    return text.append(String.format("all %.2f ms", total(cpuMs))).toString();
  }

  private static List<String> row(
      String name, double offered, PublicationLoad.Phase phase, double cpuMs, double jitMs) {
    Histogram h = phase.latencies();
    return List.of(
        name,
        String.format("%.0f", offered),
        String.format("%.0f", phase.sustainedRate()),
        oneDecimal(Latency.ms(h, 50)),
        oneDecimal(Latency.ms(h, 99)),
        oneDecimal(Latency.ms(h, 99.9)),
        oneDecimal(Latency.maxMs(h)),
        String.format("%.2f", cpuMs),
        String.format("%.2f", jitMs));
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

  private static String oneDecimal(double ms) {
    return String.format("%.1f", ms);
  }
}
