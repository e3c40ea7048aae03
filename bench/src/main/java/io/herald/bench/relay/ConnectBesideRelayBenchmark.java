package io.herald.bench.relay;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.Latency;
import io.herald.bench.suite.MachineTicks;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.relay.RelayJvmOptions;
import io.herald.relay.it.RelayFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * B2: the relay beside what users would otherwise deploy, Kafka Connect standalone running stock
 * Debezium's PostgreSQL connector with the relay's settings and EventRouters ({@link
 * KafkaConnectStandalone}), once with Kafka's stock JVM options and once with the relay's. Each
 * round, for every side in an order that rotates with the round: (a) the drain of the same backlog
 * (one slot per side made before it); then, each on a fresh slot, (b) open-loop live load at 1,000
 * events/s ({@link LiveLoad}: commit to arrival at a consumer) with the CPU it costs, and (c) the
 * idle CPU over a fixed window after it, and peak RSS.
 */
public final class ConnectBesideRelayBenchmark implements Scenario {

  private static final String TITLE =
      "relay beside Kafka Connect standalone running the same Debezium connector and EventRouter,"
          + " stock JVM and the relay's JVM options";
  private static final String RELAY = "relay";
  private static final String CONNECT = "Connect, stock JVM";
  private static final String CONNECT_RELAY_JVM = "Connect, relay's JVM options, 512 MiB heap";

  /**
   * The relay's JVM options with a 512 MiB heap: at the relay's 160 MiB the worker runs out of heap
   * while it scans the class path for plugins, before its connector starts.
   */
  private static final List<String> RELAY_JVM_FOR_CONNECT =
      java.util.stream.Stream.concat(
              RelayJvmOptions.recommended().stream()
                  .filter(
                      o -> !o.startsWith("-Xms") && !o.startsWith("-Xmx") && !o.startsWith("-Xmn")),
              java.util.stream.Stream.of("-Xms512m", "-Xmx512m"))
          .toList();

  private static final List<String> SIDES = List.of(RELAY, CONNECT, CONNECT_RELAY_JVM);
  private static final int ROWS_PER_TX = 100;
  private static final int LIVE_RATE = 1_000;
  private static final Duration STREAMING = Duration.ofMinutes(3);

  /**
   * Live load through the relay, not counted, between round 1's drains and its first live phase,
   * until the processes every side shares have compiled what the live load runs. The run's first
   * live phase was the worst of its side's rounds, whichever side had it (the relay's p99 26 to 47
   * ms in round 1 against 15 to 22 in its later rounds on the slower hosts), and a fixed 20 s of
   * this load took only part of it off (27.7 and 23.7 ms): on a slow host the broker's and this
   * JVM's JIT compiler threads still used a quarter to a half of a core each well into round 1's
   * first live phase (the broker's transaction paths, which the drains barely run; the load's own
   * writer and readers), on two cores the measured side shares with them (session 30,
   * docs/benchmarks-history.md).
   */
  private static final Duration SETTLE_MIN = Duration.ofSeconds(20);

  /** The longest settling: a host that never quiets down is measured as it is. */
  private static final Duration SETTLE_MAX = Duration.ofSeconds(120);

  /**
   * The longest settling of a side's own process before its live phase. Each side's process is
   * started for its live load, and over the 40 s of it its JIT compiler threads took about half of
   * its CPU, on every side (41 to 55 % in session 30's runs): the CPU and the p99 at 1,000 events/s
   * measured a warm-up, where a relay that runs for weeks pays the steady state. So each side's
   * live phase begins once its own compiler threads are as quiet as the shared processes' must be
   * (session 31, docs/benchmarks-history.md).
   */
  private static final Duration SIDE_SETTLE_MAX = Duration.ofSeconds(60);

  /** The settling's steps: after each, the JIT's share of it is read. */
  private static final int SETTLE_STEP_SECONDS = 10;

  /**
   * A JIT this quiet over a step, as a share of one core, counts as done: at rest the broker's and
   * this JVM's compiler threads use 0 to 2 %, while they compile the live load's paths 20 to 60 %.
   */
  private static final double SETTLED_JIT_SHARE = 0.05;

  private static final List<String> HEADER =
      List.of(
          "side",
          "drain events/s per round",
          "median drain events/s",
          "drain CPU s per 1,000 events",
          "p50 / p99 ms at 1,000 ev/s",
          "CPU s per 1,000 events at 1,000 ev/s, after the warm-up / with it",
          "idle CPU, % of a core",
          "peak RSS MiB");

  /** How a side stops: SIGTERM and a wait. */
  private interface Stop {
    void run() throws InterruptedException;
  }

  /** A running side: its process and how to stop it. */
  private record Running(long pid, Stop stop) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      stop.run();
    }
  }

  /** One side's figures of one round. */
  private record Round(
      RelayServerLimitBenchmark.Reader drain,
      LiveLoad.Latencies live,
      double liveCpuSeconds,
      double liveJitCpuSeconds,
      double brokerLiveCpuSeconds,
      int liveEvents,
      double idleCpuShare,
      long peakRssBytes,
      Settling settling,
      double liveStealPercent) {

    /**
     * p99 ms / CPU s per 1,000 events after the warm-up / with it (the JIT's share; the steal's).
     */
    String liveFigures() {
      return String.format(
          Locale.ROOT,
          "%.1f / %.3f / %.3f (%.0f %%; %.0f %%)",
          Latency.ms(live.micros(), 99),
          live.countedCpuSeconds() * 1000 / live.countedEvents(),
          liveCpuSeconds * 1000 / liveEvents,
          100 * liveJitCpuSeconds / liveCpuSeconds,
          liveStealPercent);
    }
  }

  /**
   * How long a settling offered the live load and how busy the watched processes' JIT compiler
   * threads were over its last step (shares of one core, by name; NaN for a process not found).
   */
  private record Settling(int seconds, Map<String, Double> lastJitShares) {

    boolean capped(Duration max) {
      return seconds >= max.toSeconds()
          && lastJitShares.values().stream().anyMatch(share -> share >= SETTLED_JIT_SHARE);
    }

    /** Its time and {@code name}'s last JIT share, for a report. */
    String describe(String name, Duration max) {
      return String.format(
          Locale.ROOT,
          "%d s (%.0f %%%s)",
          seconds,
          100 * lastJitShares.getOrDefault(name, 0.0),
          capped(max) ? ", at the limit" : "");
    }
  }

  @Override
  public String id() {
    return "B2";
  }

  @Override
  public String title() {
    return TITLE;
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int rows = bench.pick(1_000_000, 5_000);
    int rounds = bench.pick(3, 1);
    int liveSeconds = bench.pick(40, 3);
    int warmUpSeconds = bench.pick(10, 1);
    int idleSeconds = bench.pick(10, 1);
    boolean settle = bench.pick(true, false);
    Duration sideSettleMax = bench.pick(SIDE_SETTLE_MAX, Duration.ZERO);
    // Quick: the harness's smoke, so the slow-starting second Connect JVM is left out.
    List<String> sides = bench.pick(SIDES, List.of(RELAY, CONNECT));
    Duration timeout = bench.pick(Duration.ofMinutes(30), Duration.ofMinutes(5));
    StackContext context = StackContext.create(ConnectBesideRelayBenchmark.class);
    RelayFixture fixture = new RelayFixture(context, "b2");
    DataSource db = fixture.dataSource();
    Backlog.dropSlot(db, context.slot()); // each side has its own slots
    String bootstrap = context.bootstrapServers();
    String topic = fixture.publicationEvents;
    int warmUpRows = RelayServerLimitBenchmark.warmUpBroker(bench, id(), fixture, timeout);
    // The dev stack's broker, a child of this JVM; a broker elsewhere reads NaN.
    Optional<Long> kafka = ProcessGroup.kafka();
    Map<String, List<Round>> results = new LinkedHashMap<>();
    // Per side, in round order.
    Map<String, List<String>> vacuumWaits = new LinkedHashMap<>();
    String settled = "";
    int run = 0;
    for (int round = 1; round <= rounds; round++) {
      List<String> order = new ArrayList<>(sides);
      Collections.rotate(order, -(round - 1));
      Map<String, String> slots = new LinkedHashMap<>();
      for (String side : order) {
        String slot = context.slot() + "_" + ++run;
        slots.put(side, slot);
        Backlog.createSlot(db, slot);
      }
      bench.progress(
          id(),
          String.format(Locale.ROOT, "round %d/%d: loading %,d rows", round, rounds, rows),
          true);
      Backlog.load(db, rows, ROWS_PER_TX);
      Backlog.markEnd(db);
      Map<String, RelayServerLimitBenchmark.Reader> drains = new LinkedHashMap<>();
      for (String side : order) {
        bench.progress(id(), "round " + round + ": drain with " + side, true);
        long onTopic = Backlog.records(bootstrap, topic);
        try (Running running = start(side, fixture, slots.get(side))) {
          drains.put(
              side,
              RelayServerLimitBenchmark.intoTopic(
                  bootstrap, topic, onTopic, rows, running.pid(), timeout));
        }
        Backlog.dropWhenReleased(db, slots.get(side), STREAMING);
        bench.progress(
            id(),
            String.format(Locale.ROOT, "  %.0f events/s", rows / drains.get(side).seconds()),
            true);
      }
      if (round == 1 && settle) {
        String slot = context.slot() + "_" + ++run;
        Backlog.createSlot(db, slot);
        try (Running running = start(RELAY, fixture, slot)) {
          awaitStreaming(fixture, db);
          Settling shared =
              settle(
                  bench,
                  fixture,
                  "round 1: live load with the relay, not counted, until the broker's and this"
                      + " JVM's JIT are quiet",
                  Map.of("broker", kafka, "load", Optional.of(ProcessHandle.current().pid())),
                  SETTLE_MIN,
                  SETTLE_MAX);
          settled = describeSharedSettling(shared);
        }
        Backlog.dropWhenReleased(db, slot, STREAMING);
      }
      for (String side : order) {
        bench.progress(id(), "round " + round + ": live load and idle with " + side, true);
        String slot = context.slot() + "_" + ++run;
        Backlog.createSlot(db, slot);
        try (Running running = start(side, fixture, slot)) {
          vacuumWaits
              .computeIfAbsent(side, s -> new ArrayList<>())
              .add(awaitStreaming(fixture, db));
          Settling own =
              settle(
                  bench,
                  fixture,
                  "  live load, not counted, until " + side + "'s JIT is quiet",
                  Map.of(side, Optional.of(running.pid())),
                  Duration.ZERO,
                  sideSettleMax);
          ProcessStats.Sample beforeLive = RelayServerLimitBenchmark.sample(running.pid());
          double brokerBefore = cpuSeconds(kafka, false);
          MachineTicks machineBefore = MachineTicks.now();
          LiveLoad.Latencies live =
              LiveLoad.offer(
                  fixture,
                  LIVE_RATE,
                  LIVE_RATE * liveSeconds,
                  warmUpSeconds,
                  () -> RelayServerLimitBenchmark.sample(running.pid()).cpuSeconds());
          ProcessStats.Sample afterLive = RelayServerLimitBenchmark.sample(running.pid());
          double brokerLive = cpuSeconds(kafka, false) - brokerBefore;
          double liveSteal = MachineTicks.now().stealPercentSince(machineBefore);
          long idleStart = System.nanoTime();
          Thread.sleep(Duration.ofSeconds(idleSeconds)); // the idle window measured
          ProcessStats.Sample afterIdle = RelayServerLimitBenchmark.sample(running.pid());
          double idleShare =
              (afterIdle.cpuSeconds() - afterLive.cpuSeconds())
                  / ((System.nanoTime() - idleStart) / 1e9);
          results
              .computeIfAbsent(side, k -> new ArrayList<>())
              .add(
                  new Round(
                      drains.get(side),
                      live,
                      afterLive.cpuSeconds() - beforeLive.cpuSeconds(),
                      afterLive.jitCpuSeconds() - beforeLive.jitCpuSeconds(),
                      brokerLive,
                      LIVE_RATE * liveSeconds,
                      idleShare,
                      Math.max(drains.get(side).peakRssBytes(), afterIdle.peakRssBytes()),
                      own,
                      liveSteal));
        }
        Backlog.dropWhenReleased(db, slot, STREAMING);
      }
    }
    return result(
        bench,
        sides,
        results,
        vacuumWaits,
        rows,
        rounds,
        warmUpRows,
        liveSeconds,
        warmUpSeconds,
        idleSeconds,
        settled,
        sideSettleMax);
  }

  /**
   * Offers the live load through the running side in steps of {@link #SETTLE_STEP_SECONDS} until
   * every {@code watched} process's JIT compiler threads used less than {@link #SETTLED_JIT_SHARE}
   * of a core over a step, for at least {@code min} (one step at the least, unless {@code max} is
   * zero: then none) and at most {@code max}.
   */
  private Settling settle(
      Bench bench,
      RelayFixture fixture,
      String progress,
      Map<String, Optional<Long>> watched,
      Duration min,
      Duration max)
      throws Exception {
    int seconds = 0;
    Map<String, Double> shares = new LinkedHashMap<>();
    while (seconds < max.toSeconds()
        && (seconds == 0
            || seconds < min.toSeconds()
            || shares.values().stream().anyMatch(share -> share >= SETTLED_JIT_SHARE))) {
      bench.progress(id(), String.format(Locale.ROOT, "%s (%d s so far)", progress, seconds), true);
      Map<String, Double> before = new LinkedHashMap<>();
      watched.forEach((name, pid) -> before.put(name, cpuSeconds(pid, true)));
      long start = System.nanoTime();
      LiveLoad.offer(fixture, LIVE_RATE, LIVE_RATE * SETTLE_STEP_SECONDS, 0);
      double elapsed = (System.nanoTime() - start) / 1e9;
      // A process not found reads NaN, which never holds the settling back.
      watched.forEach(
          (name, pid) -> shares.put(name, (cpuSeconds(pid, true) - before.get(name)) / elapsed));
      seconds += SETTLE_STEP_SECONDS;
    }
    return new Settling(seconds, Map.copyOf(shares));
  }

  /** The workload's words for round 1's settling of the processes every side shares. */
  private static String describeSharedSettling(Settling shared) {
    return String.format(
        Locale.ROOT,
        "%d s of live load through the relay, not counted, between round 1's drains and its live"
            + " phases: until the broker's and the load's own JIT compiler threads used under %.0f"
            + " %% of a core over %d s (%.0f %% and %.0f %% in the last %d s%s)",
        shared.seconds(),
        SETTLED_JIT_SHARE * 100,
        SETTLE_STEP_SECONDS,
        shared.lastJitShares().get("broker") * 100,
        shared.lastJitShares().get("load") * 100,
        SETTLE_STEP_SECONDS,
        shared.capped(SETTLE_MAX)
            ? "; stopped at the limit of " + SETTLE_MAX.toSeconds() + " s"
            : "");
  }

  /**
   * Returns once the side just started streams (a probe row has reached the topic) and PostgreSQL
   * runs no autovacuum, saying how long that wait took: otherwise the first live phase after a
   * backlog shares the cores with its vacuum (7.7 s of it before round 1's in session 28), as
   * RelayDrainBenchmark's latency phase would.
   */
  private static String awaitStreaming(RelayFixture fixture, DataSource db) throws Exception {
    String bootstrap = fixture.context().bootstrapServers();
    long onTopic = Backlog.records(bootstrap, fixture.publicationEvents);
    Backlog.load(db, 1, 1);
    Backlog.awaitRecords(bootstrap, fixture.publicationEvents, onTopic + 1, STREAMING);
    return Backlog.awaitNoAutovacuum(db);
  }

  /** The autovacuum waits once if every phase's was the same, else per side in round order. */
  private static String vacuumWaits(Map<String, List<String>> bySide) {
    List<String> distinct = bySide.values().stream().flatMap(List::stream).distinct().toList();
    if (distinct.size() == 1) {
      return "in every phase, " + distinct.get(0);
    }
    return bySide.entrySet().stream()
        .map(e -> e.getKey() + ": " + String.join(", ", e.getValue()))
        .collect(Collectors.joining("; "));
  }

  /** The process's CPU seconds so far, or only its JIT compiler threads'; NaN without one. */
  private static double cpuSeconds(Optional<Long> pid, boolean jitOnly) {
    return pid.map(RelayServerLimitBenchmark::sample)
        .map(sample -> jitOnly ? sample.jitCpuSeconds() : sample.cpuSeconds())
        .orElse(Double.NaN);
  }

  private static Running start(String side, RelayFixture fixture, String slot) throws Exception {
    if (side.equals(RELAY)) {
      RelayFixture.Relay relay = RelayServerLimitBenchmark.startRelay(fixture, slot);
      return new Running(relay.pid(), relay::terminate);
    }
    List<String> jvm =
        side.equals(CONNECT) ? KafkaConnectStandalone.STOCK_JVM : RELAY_JVM_FOR_CONNECT;
    ChildJvm connect =
        KafkaConnectStandalone.start(
            fixture, slot, jvm, Path.of("target", "bench-logs", "b2-" + slot));
    // close(): SIGTERM, and SIGKILL once the child's grace has passed.
    return new Running(connect.pid(), connect::close);
  }

  private ScenarioResult result(
      Bench bench,
      List<String> sides,
      Map<String, List<Round>> results,
      Map<String, List<String>> vacuumWaits,
      int rows,
      int rounds,
      int warmUpRows,
      int liveSeconds,
      int warmUpSeconds,
      int idleSeconds,
      String settled,
      Duration sideSettleMax) {
    List<List<String>> table = new ArrayList<>();
    // p50 / p99 to a read_uncommitted reader, per side: the latency before a transaction commits.
    List<String> split = new ArrayList<>();
    // Each round's p99 and CPU at 1,000 ev/s, per side: their spread is what a gap is read against.
    List<String> perRound = new ArrayList<>();
    // The broker's CPU while each side's live load ran: what the side's producing costs the box.
    List<String> brokerShares = new ArrayList<>();
    // How long each side's own JIT took to quiet down before its live phases, per round.
    List<String> sideSettlings = new ArrayList<>();
    Map<String, Double> figures = new LinkedHashMap<>();
    Map<String, Double> bars = new LinkedHashMap<>();
    for (String side : sides) {
      List<Round> runs = results.get(side);
      List<Double> rates = runs.stream().map(r -> rows / r.drain().seconds()).toList();
      double drainCpu =
          runs.stream().mapToDouble(r -> r.drain().cpuSeconds()).sum()
              * 1000
              / ((long) rows * runs.size());
      // Every round's events in one histogram: the p99 of them all, not a median of p99s.
      Histogram latencies = Latency.histogram();
      Histogram acknowledged = Latency.histogram();
      runs.forEach(
          r -> {
            latencies.add(r.live().micros());
            acknowledged.add(r.live().acknowledgedMicros());
          });
      double p50 = Latency.ms(latencies, 50);
      double p99 = Latency.ms(latencies, 99);
      split.add(
          String.format(
              Locale.ROOT,
              "%s %.1f / %.1f ms",
              side,
              Latency.ms(acknowledged, 50),
              Latency.ms(acknowledged, 99)));
      perRound.add(perRound(side, runs, Round::liveFigures));
      sideSettlings.add(perRound(side, runs, r -> r.settling().describe(side, sideSettleMax)));
      // The goal's figure: the window the latencies cover, the rate held for the warm-up's length.
      double liveCpu =
          runs.stream().mapToDouble(r -> r.live().countedCpuSeconds()).sum()
              * 1000
              / runs.stream().mapToLong(r -> r.live().countedEvents()).sum();
      // With the warm-up: a process started for the load, so its compilation and first batches.
      double liveCpuWhole =
          runs.stream().mapToDouble(Round::liveCpuSeconds).sum()
              * 1000
              / runs.stream().mapToLong(Round::liveEvents).sum();
      double idle =
          RelayServerLimitBenchmark.median(runs.stream().map(Round::idleCpuShare).toList());
      long peak = runs.stream().mapToLong(Round::peakRssBytes).max().orElse(0);
      double median = RelayServerLimitBenchmark.median(rates);
      table.add(
          List.of(
              side,
              String.join(
                  ", ", rates.stream().map(r -> String.format(Locale.ROOT, "%,.0f", r)).toList()),
              String.format(Locale.ROOT, "%,.0f", median),
              // Four places: at three the relay's 0.0095 printed as 0.010, and its ratio to
              // Connect's (0.45) read as 0.48 from the table.
              String.format(Locale.ROOT, "%.4f", drainCpu),
              String.format(Locale.ROOT, "%.1f / %.1f", p50, p99),
              String.format(Locale.ROOT, "%.3f / %.3f", liveCpu, liveCpuWhole),
              String.format(Locale.ROOT, "%.1f", idle * 100),
              Long.toString(peak >> 20)));
      String key =
          side.equals(RELAY) ? "relay" : side.equals(CONNECT) ? "connect" : "connect_relay_jvm";
      figures.put("drain_events_per_second_" + key, median);
      figures.put("drain_cpu_s_per_1000_" + key, drainCpu);
      figures.put("p99_ms_at_1000_" + key, p99);
      figures.put("live_cpu_s_per_1000_" + key, liveCpu);
      figures.put("live_cpu_with_warm_up_s_per_1000_" + key, liveCpuWhole);
      figures.put("idle_cpu_share_" + key, idle);
      double brokerCpu =
          runs.stream().mapToDouble(Round::brokerLiveCpuSeconds).sum()
              * 1000
              / runs.stream().mapToLong(Round::liveEvents).sum();
      figures.put("broker_live_cpu_s_per_1000_" + key, brokerCpu);
      brokerShares.add(String.format(Locale.ROOT, "%s %.3f", side, brokerCpu));
      figures.put("peak_rss_mib_" + key, (double) (peak >> 20));
      bars.put(side, median);
    }
    List<String> notes = new ArrayList<>();
    ratio(notes, figures, "Drain, relay / stock Connect", "drain_events_per_second_", 2.0, true);
    ratio(
        notes,
        figures,
        "CPU per event in the drain, relay / stock Connect",
        "drain_cpu_s_per_1000_",
        0.5,
        false);
    ratio(
        notes,
        figures,
        "p99 commit to Kafka at 1,000 ev/s, relay / stock Connect",
        "p99_ms_at_1000_",
        0.5,
        false);
    ratio(
        notes,
        figures,
        "CPU per event at 1,000 ev/s after the warm-up (the p99's window), relay / stock Connect",
        "live_cpu_s_per_1000_",
        1.0,
        false);
    figures.put(
        "ratio_live_cpu_with_warm_up_s_per_1000_relay_to_connect",
        figures.get("live_cpu_with_warm_up_s_per_1000_relay")
            / figures.get("live_cpu_with_warm_up_s_per_1000_connect"));
    notes.add(
        String.format(
            Locale.ROOT,
            "The same with the warm-up's %d s (after the settling below): %.2f.",
            warmUpSeconds,
            figures.get("ratio_live_cpu_with_warm_up_s_per_1000_relay_to_connect")));
    notes.add(
        "Latency is to a read_committed reader, as Herald's consumer reads. p50 / p99 at 1,000"
            + " ev/s to a read_uncommitted reader, which sees a record once the broker has"
            + " acknowledged it, before its transaction commits: "
            + String.join(", ", split)
            + " (the same for Connect, whose producer is not transactional).");
    notes.add(
        "Per round, in round order, at 1,000 ev/s: p99 ms / CPU s per 1,000 events after the"
            + " warm-up / the same with it (the JIT compiler threads' share of that; the share of"
            + " both cores the host gave to other guests meanwhile, its steal time: a phase with"
            + " more than a few % measured the host): "
            + String.join("; ", perRound)
            + ".");
    notes.add(
        String.format(
            Locale.ROOT,
            "Before each live phase, each side's process ran the live load, not counted, until its"
                + " own JIT compiler threads used under %.0f %% of a core over %d s (at most %d s),"
                + " so that its figures are the steady state a long-running process pays; the"
                + " time it took per round in round order (the JIT's share of a core in its last"
                + " %d s): %s.",
            SETTLED_JIT_SHARE * 100,
            SETTLE_STEP_SECONDS,
            sideSettleMax.toSeconds(),
            SETTLE_STEP_SECONDS,
            String.join("; ", sideSettlings)));
    notes.add(
        "The broker's CPU s per 1,000 events during each side's live phases (warm-up included),"
            + " on the cores the sides share with it: "
            + String.join(", ", brokerShares)
            + "; the relay's transactions (a partition add, an end and its markers per batch)"
            + " against Connect's plain sends.");
    notes.add(
        "Idle CPU: each process over "
            + idleSeconds
            + " s right after the live load; RSS ratio, relay / stock Connect: "
            + String.format(
                Locale.ROOT,
                "%.2f",
                figures.get("peak_rss_mib_relay") / figures.get("peak_rss_mib_connect"))
            + ".");
    notes.add(
        "Before each live phase, once the side streamed, PostgreSQL's autovacuum of the round's"
            + " backlog was waited out: "
            + vacuumWaits(vacuumWaits)
            + ".");
    notes.add(
        "Connect standalone cannot run exactly-once source tasks (distributed mode only): it"
            + " publishes at least once with an idempotent producer, the relay in Kafka"
            + " transactions (the fencing a standby needs).");
    String workload =
        String.format(
            Locale.ROOT,
            "Workload: a backlog of %,d writer.outbox rows at %d rows/tx, one slot per side made"
                + " before it; then on fresh slots %d s open-loop at %,d events/s, 1 row/tx,"
                + " latency from the row's commit to its arrival at a read_committed consumer of the topic"
                + " and each side's CPU, both after its process's JIT settled (below) and %d s of warm-up; %d round(s), the sides' order rotating%s%s. The relay with"
                + " the shipped relay.properties and RelayJvmOptions.recommended(); Connect %s"
                + " with stock Debezium 3.6.1 and the relay's engine properties; topic of 3"
                + " partitions; the dev stack's broker, its transactions' partition-add retry set"
                + " as docs/design.md recommends for the relay; %d cores.",
            rows,
            ROWS_PER_TX,
            liveSeconds,
            LIVE_RATE,
            warmUpSeconds,
            rounds,
            RelayServerLimitBenchmark.warmUpClause(warmUpRows),
            settled.isEmpty() ? "" : "; " + settled,
            "4.3.1 standalone (file offsets, StringConverter)",
            Runtime.getRuntime().availableProcessors());
    Path chart = bench.reportDir().resolve("b2-drain.png");
    List<Path> plots =
        Charts.bars(chart, "B2: backlog drain, events/s (median of rounds)", "events/s", bars)
            .stream()
            .toList();
    return new ScenarioResult(id(), title(), workload, HEADER, table, notes, plots, figures);
  }

  /** The side's name, then {@code figure} of each of its rounds in round order. */
  private static String perRound(String side, List<Round> runs, Function<Round, String> figure) {
    return side + " " + String.join(", ", runs.stream().map(figure).toList());
  }

  private static void ratio(
      List<String> notes,
      Map<String, Double> figures,
      String what,
      String key,
      double goal,
      boolean atLeast) {
    double ratio = figures.get(key + "relay") / figures.get(key + "connect");
    figures.put("ratio_" + key + "relay_to_connect", ratio);
    boolean met = atLeast ? ratio >= goal : ratio <= goal;
    notes.add(
        String.format(
            Locale.ROOT,
            "%s: %.2f (goal %s %.1f): %s.",
            what,
            ratio,
            atLeast ? ">=" : "<=",
            goal,
            met ? "met" : "missed"));
  }
}
