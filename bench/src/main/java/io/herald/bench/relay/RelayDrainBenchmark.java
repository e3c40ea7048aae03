package io.herald.bench.relay;

import io.herald.bench.suite.Latency;
import io.herald.bench.suite.MachineTicks;
import io.herald.bench.suite.ProcessStats;
import io.herald.devstack.StackContext;
import io.herald.relay.RelayJvmOptions;
import io.herald.relay.it.RelayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleFunction;
import java.util.stream.Collectors;

/**
 * Benchmark, not a test: prints the figures of docs/benchmarks-history.md, "Relay: draining a
 * backlog against {@code pg_recvlogical}". Run with {@code ./mvnw -B -pl bench -am -Pbenchmark
 * verify -DskipTests -Dbench.main=io.herald.bench.relay.RelayDrainBenchmark
 * -Dbench.options='-Dherald.benchmark.rows=...'}.
 *
 * <p>For each variant (relay settings and JVM options) it drains a backlog of outbox rows with the
 * relay and, side by side, with {@code pg_recvlogical} to /dev/null on an identical pgoutput slot
 * created at the same position (so each ratio compares runs made under the same machine load);
 * after the variant's last drain it measures commit-to-Kafka latency at 1,000 events/s and the idle
 * relay's CPU. Rounds interleave the variants (A, B, A, B...) because the shared box's speed
 * drifts.
 *
 * <ul>
 *   <li>{@code herald.benchmark.rows}: backlog size, default 1,000,000
 *   <li>{@code herald.benchmark.rows-per-tx}: drains per variant, default {@code 100,1}
 *   <li>{@code herald.benchmark.rounds}: default 1
 *   <li>{@code herald.benchmark.variants}: {@code name:setting,setting;name:...}, a setting being a
 *       relay property {@code key=value} or a JVM option starting with {@code -}; default one
 *       variant {@code shipped} (the shipped property file and {@link #BASE_JVM})
 *   <li>{@code herald.benchmark.latency}: {@code false} skips the latency and idle phases (drain
 *       sweeps), default {@code true}
 *   <li>{@code herald.benchmark.jvm}: JVM options added to every variant (e.g. a JFR recording)
 * </ul>
 */
public final class RelayDrainBenchmark {

  /** The recommended production JVM options (docs/design.md), the base of every variant. */
  static final List<String> BASE_JVM = RelayJvmOptions.recommended();

  private static final int ROWS = Integer.getInteger("herald.benchmark.rows", 1_000_000);
  private static final int ROUNDS = Integer.getInteger("herald.benchmark.rounds", 1);
  private static final boolean LATENCY =
      Boolean.parseBoolean(System.getProperty("herald.benchmark.latency", "true"));
  private static final List<Integer> ROWS_PER_TX =
      java.util.Arrays.stream(
              System.getProperty("herald.benchmark.rows-per-tx", "100,1").split(","))
          .map(String::strip)
          .map(Integer::valueOf)
          .toList();
  private static final List<Variant> VARIANTS =
      Variant.parseAll(System.getProperty("herald.benchmark.variants", "shipped:"));

  /** A named set of relay property overrides and JVM options. */
  record Variant(String name, Map<String, String> settings, List<String> jvm) {

    static List<Variant> parseAll(String spec) {
      List<Variant> variants = new ArrayList<>();
      for (String part : spec.split(";")) {
        if (part.isBlank()) {
          continue;
        }
        int colon = part.indexOf(':');
        String name = colon < 0 ? part.strip() : part.substring(0, colon).strip();
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        List<String> jvm = new ArrayList<>(BASE_JVM);
        if (colon >= 0) {
          for (String setting : part.substring(colon + 1).split(",")) {
            String s = setting.strip();
            if (s.isEmpty()) {
              continue;
            }
            if (s.startsWith("-")) {
              jvm.add(s);
            } else {
              int eq = s.indexOf('=');
              settings.put(s.substring(0, eq).strip(), s.substring(eq + 1).strip());
            }
          }
        }
        String extra = System.getProperty("herald.benchmark.jvm", "").strip();
        if (!extra.isEmpty()) {
          jvm.addAll(List.of(extra.split("\\s+")));
        }
        variants.add(new Variant(name, Map.copyOf(settings), List.copyOf(jvm)));
      }
      return variants;
    }
  }

  private RelayDrainBenchmark() {}

  public static void main(String[] args) throws Exception {
    printDrainLatencyAndCostFigures(StackContext.create(RelayDrainBenchmark.class));
    // The stack's shutdown hook stops PostgreSQL and Kafka; client threads must not keep us up.
    System.exit(0);
  }

  static void printDrainLatencyAndCostFigures(StackContext context) throws Exception {
    RelayFixture fixture = new RelayFixture(context, "benchmark");
    List<String> report = new ArrayList<>();
    // Ratios per "variant, rows/tx", in round order: the rounds' spread is the figure to compare.
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    for (Variant variant : VARIANTS) {
      report(report, "variant " + variant.name() + ": " + variant.settings() + " " + variant.jvm());
    }
    for (int round = 1; round <= ROUNDS; round++) {
      for (Variant variant : VARIANTS) {
        for (int rowsPerTx : ROWS_PER_TX) {
          String recvSlot = "bench_recv_" + rowsPerTx + "_" + context.slot();
          Backlog.createSlot(fixture.dataSource(), recvSlot);
          long loadStart = System.nanoTime();
          Backlog.load(fixture.dataSource(), ROWS, rowsPerTx);
          long loadMs = ms(loadStart);
          String endLsn = Backlog.markEnd(fixture.dataSource());
          // Counted from the topic's end offsets now, not from the outbox's rows: each Kafka
          // transaction's commit marker takes an offset in every partition it wrote, and a live
          // phase at a few events per transaction leaves tens of thousands of them, so a target
          // from the outbox was reached before the next relay had even started. The drain's own
          // markers (one per partition per transaction of up to a full batch) end it a fraction of
          // a percent early.
          long target =
              Backlog.records(context.bootstrapServers(), fixture.publicationEvents) + ROWS;

          ProcessStats.Finished recv =
              PgRecvLogical.drain(context, recvSlot, endLsn, Duration.ofMinutes(30));
          Backlog.dropSlot(fixture.dataSource(), recvSlot);

          RelayFixture.Relay relay = fixture.start(variant.settings(), variant.jvm());
          ProcessHandle handle = ProcessHandle.of(relay.pid()).orElseThrow();
          long started = System.nanoTime();
          Backlog.awaitRecords(
              context.bootstrapServers(),
              fixture.publicationEvents,
              target - ROWS + 1,
              Duration.ofMinutes(5));
          long firstEvent = System.nanoTime();
          double cpuAtFirst = cpuSeconds(handle);
          Map<Long, ProcessStats.ThreadCpu> threadsAtFirst = ProcessStats.threads(handle.pid());
          MachineTicks boxAtFirst = MachineTicks.now();
          Backlog.awaitRecords(
              context.bootstrapServers(),
              fixture.publicationEvents,
              target,
              Duration.ofMinutes(30));
          long done = System.nanoTime();
          double cpuDrain = cpuSeconds(handle) - cpuAtFirst;
          Map<Long, ProcessStats.ThreadCpu> threadsAtDone = ProcessStats.threads(handle.pid());
          MachineTicks boxAtDone = MachineTicks.now();
          long rssKb = RelayServerLimitBenchmark.sample(relay.pid()).peakRssBytes() / 1024;
          long threads = threadsAtDone.size();
          double batches = relay.metric("herald_relay_batch_size_count");
          double batchRecords = relay.metric("herald_relay_batch_size_sum");
          double sendSeconds = relay.metric("herald_relay_batch_send_latency_seconds_sum");
          double drainSeconds = (done - firstEvent) / 1e9;
          double relayRate = ROWS / drainSeconds;
          ratios
              .computeIfAbsent(
                  variant.name() + ", " + rowsPerTx + " rows/tx", k -> new ArrayList<>())
              .add(relayRate / (ROWS / recv.seconds()));
          report(
              report,
              String.format(
                  "round %d %s, %d rows/tx: backlog of %,d rows loaded in %d ms; pg_recvlogical"
                      + " %.1f s (%.0f rows/s, %.1f CPU s); relay %.1f s after its first event"
                      + " (%.0f ev/s, start-up %.1f s), ratio %.2f; relay %.1f CPU s per million"
                      + " events (busiest threads, CPU s per million events: %s); peak RSS %d MiB,"
                      + " %d threads; %.0f batches of %.1f records, %.1f s in the sink; machine"
                      + " busy %.0f %% of its %d cores during the drain, %.0f %% stolen by the host",
                  round,
                  variant.name(),
                  rowsPerTx,
                  ROWS,
                  loadMs,
                  recv.seconds(),
                  ROWS / recv.seconds(),
                  recv.cpuSeconds(),
                  drainSeconds,
                  relayRate,
                  (firstEvent - started) / 1e9,
                  relayRate / (ROWS / recv.seconds()),
                  cpuDrain / (ROWS / 1_000_000.0),
                  busiestPerMillion(threadsAtFirst, threadsAtDone, ROWS),
                  rssKb / 1024,
                  threads,
                  batches,
                  batchRecords / batches,
                  sendSeconds,
                  boxAtDone.busyPercentSince(boxAtFirst),
                  Runtime.getRuntime().availableProcessors(),
                  boxAtDone.stealPercentSince(boxAtFirst)));
          if (LATENCY && rowsPerTx == ROWS_PER_TX.get(ROWS_PER_TX.size() - 1)) {
            // The end offsets can be reached while the relay still publishes the backlog (its
            // transaction markers, what an earlier relay sent again): the live load starts only
            // once the slot has confirmed the backlog's end.
            Backlog.awaitConfirmed(
                fixture.dataSource(), context.slot(), endLsn, Duration.ofMinutes(2));
            report(
                report,
                "round " + round + " " + variant.name() + ": " + latency(fixture, relay, handle));
            report(
                report,
                String.format(
                    "round %d %s: peak RSS after latency %d MiB",
                    round,
                    variant.name(),
                    RelayServerLimitBenchmark.sample(relay.pid()).peakRssBytes() / (1024 * 1024)));
          }
          if (variant.jvm().stream().anyMatch(o -> o.startsWith("-XX:NativeMemoryTracking"))) {
            report(report, "round " + round + " " + variant.name() + ": " + nmt(relay));
          }
          relay.terminate();
        }
      }
    }
    ratios.forEach(
        (what, values) -> {
          List<Double> sorted = values.stream().sorted().toList();
          int n = sorted.size();
          double median =
              n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
          report(
              report,
              String.format(
                  "%s: ratio %s, median %.3f",
                  what, values.stream().map(r -> String.format("%.2f", r)).toList(), median));
        });
    System.out.println("RelayDrainBenchmark results:");
    report.forEach(line -> System.out.println("  " + line));
  }

  /** The committed-memory lines of {@code jcmd PID VM.native_memory summary}, condensed. */
  private static String nmt(RelayFixture.Relay relay) throws IOException, InterruptedException {
    Process jcmd =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(relay.pid()),
                "VM.native_memory",
                "summary")
            .redirectErrorStream(true)
            .start();
    String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    jcmd.waitFor(30, TimeUnit.SECONDS);
    List<String> parts = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("-\\s+([A-Za-z ]+?) \\(reserved=\\d+KB, committed=(\\d+)KB")
            .matcher(out);
    while (m.find()) {
      long mib = Long.parseLong(m.group(2)) / 1024;
      if (mib >= 2) {
        parts.add(m.group(1).strip() + " " + mib);
      }
    }
    java.util.regex.Matcher total =
        java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB").matcher(out);
    return "NMT committed MiB: total "
        + (total.find() ? Long.parseLong(total.group(1)) / 1024 : -1)
        + ", "
        + String.join(", ", parts);
  }

  private static void report(List<String> report, String line) {
    report.add(line);
    System.out.println("RelayDrainBenchmark: " + line);
  }

  /**
   * Offers 1,000 events/s for 30 s, then 20 events/s for 20 s, then 2 events/s for 20 s, one row
   * per transaction; prints commit-to-Kafka latency, at 1,000 events/s of the last 15 s. The first
   * 15 s are a warm-up, reported apart: they follow a drain, and a relay JVM started seconds before
   * is still compiling (C2 takes a quarter to a third of its CPU in a short drain) and meets the
   * small-batch paths. At 20 events/s most events find the relay's streaming thread asleep (it
   * sleeps poll.interval.ms after 5 empty reads); at 2 events/s each event meets a stream quiet for
   * longer than relay.stream.idle-after, so the idle wait is on.
   */
  private static String latency(
      RelayFixture fixture, RelayFixture.Relay relay, ProcessHandle handle) throws Exception {
    int warmUpSeconds = 15;
    String vacuum = Backlog.awaitNoAutovacuum(fixture.dataSource());
    int highEvents = 30_000;
    double cpuBeforeHigh = cpuSeconds(handle);
    MachineTicks boxBeforeHigh = MachineTicks.now();
    LiveLoad.Latencies high =
        LiveLoad.offer(fixture, 1_000, highEvents, warmUpSeconds, () -> cpuSeconds(handle));
    // B2's goal counts the latencies' window; the whole phase with the warm-up is printed too.
    double countedCpuPer1000 = high.countedCpuSeconds() * 1000 / high.countedEvents();
    double highCpuPer1000 = (cpuSeconds(handle) - cpuBeforeHigh) / (highEvents / 1000.0);
    // So a tail the host's other guests stretched is read as theirs (session 31).
    double highSteal = MachineTicks.now().stealPercentSince(boxBeforeHigh);
    LiveLoad.Latencies low = LiveLoad.offer(fixture, 20, 400, 0);
    // Half a second apart, each event meets a stream that has been quiet for a while.
    LiveLoad.Latencies rare = LiveLoad.offer(fixture, 2, 40, 0);
    java.util.SortedMap<Integer, Long> worstPerSecond = high.worstPerSecond();
    // Two idle windows: 0-10 s after the load still holds what the load left behind (JIT
    // compilation, a collection, the last offset commit); 30-40 s after is the relay at rest.
    String[] idle = new String[2];
    for (int window = 0; window < idle.length; window++) {
      if (window == 1) {
        Thread.sleep(20_000); // the gap between the two windows
      }
      Map<Long, ProcessStats.ThreadCpu> threadsBefore = ProcessStats.threads(handle.pid());
      double idleCpuStart = cpuSeconds(handle);
      long idleStart = System.nanoTime();
      Thread.sleep(10_000); // measuring the idle relay's CPU over a fixed window
      long elapsed = System.nanoTime() - idleStart;
      double idleShare = (cpuSeconds(handle) - idleCpuStart) * 1e9 / elapsed;
      idle[window] =
          String.format(
              "%.1f%% of a core (busiest threads: %s)",
              idleShare * 100, busiest(threadsBefore, ProcessStats.threads(handle.pid()), elapsed));
    }
    return String.format(
        "%s; latency at 1,000 ev/s offered (1 row/tx, %d events after a %d s warm-up), to a"
            + " read_committed reader: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; acknowledged"
            + " (read_uncommitted): p50 %.1f ms, p99 %.1f ms; relay CPU %.3f s per 1,000 events"
            + " of those measured, %.3f over all with the warm-up; %.0f %% of the machine's cores"
            + " stolen by the host through the phase; worst per second (ms) warm-up %s,"
            + " measured %s; at 20 ev/s"
            + " (%d events): p50 %.1f ms, p99 %.1f ms, max %.1f ms; at 2 ev/s (%d events): p50 %.1f ms,"
            + " max %.1f ms; idle relay CPU, heartbeat 10 s: 0-10 s after the"
            + " load %s, 30-40 s after %s",
        vacuum,
        high.micros().getTotalCount(),
        warmUpSeconds,
        Latency.ms(high.micros(), 50),
        Latency.ms(high.micros(), 90),
        Latency.ms(high.micros(), 99),
        Latency.maxMs(high.micros()),
        Latency.ms(high.acknowledgedMicros(), 50),
        Latency.ms(high.acknowledgedMicros(), 99),
        countedCpuPer1000,
        highCpuPer1000,
        highSteal,
        worstPerSecond.headMap(warmUpSeconds).values(),
        worstPerSecond.tailMap(warmUpSeconds).values(),
        low.micros().getTotalCount(),
        Latency.ms(low.micros(), 50),
        Latency.ms(low.micros(), 99),
        Latency.maxMs(low.micros()),
        rare.micros().getTotalCount(),
        Latency.ms(rare.micros(), 50),
        Latency.maxMs(rare.micros()),
        idle[0],
        idle[1]);
  }

  /**
   * The threads that used the most CPU between two snapshots, as CPU seconds per million events.
   */
  private static String busiestPerMillion(
      Map<Long, ProcessStats.ThreadCpu> before,
      Map<Long, ProcessStats.ThreadCpu> after,
      long events) {
    return busiest(before, after, 6, seconds -> String.format("%.1f", seconds * 1e6 / events));
  }

  /** The threads that used the most CPU between two snapshots, as "name 1.2%" of a core. */
  private static String busiest(
      Map<Long, ProcessStats.ThreadCpu> before,
      Map<Long, ProcessStats.ThreadCpu> after,
      long nanos) {
    return busiest(
        before, after, 5, seconds -> String.format("%.1f%%", seconds * 1e9 * 100 / nanos));
  }

  private static String busiest(
      Map<Long, ProcessStats.ThreadCpu> before,
      Map<Long, ProcessStats.ThreadCpu> after,
      int limit,
      DoubleFunction<String> figure) {
    return after.entrySet().stream()
        .map(
            e -> {
              ProcessStats.ThreadCpu earlier = before.get(e.getKey());
              double used =
                  e.getValue().cpuSeconds() - (earlier == null ? 0 : earlier.cpuSeconds());
              return Map.entry(e.getValue().name(), used);
            })
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .limit(limit)
        .map(e -> e.getKey() + " " + figure.apply(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** The relay's CPU seconds so far; fails rather than read a process that has gone as idle. */
  private static double cpuSeconds(ProcessHandle handle) {
    return RelayServerLimitBenchmark.sample(handle.pid()).cpuSeconds();
  }

  private static long ms(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
