package io.herald.bench.writer;

import static org.awaitility.Awaitility.await;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.PlainHttpConnections;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import io.herald.relay.RelayJvmOptions;
import io.herald.relay.it.RelayFixture;
import io.herald.writer.WriterProcess;
import io.herald.writer.config.WriterConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * B3: what capture costs the writer. Two in-process writers with the shipped retention ({@code
 * keep}) on two databases of the stack's PostgreSQL: one captured, its slot read by a running relay
 * (a child JVM with the production options, publishing into Kafka), one whose slot is dropped after
 * start-up, so nothing decodes its WAL. The server runs {@code wal_level=logical} for both. The
 * commit rate at 32 closed-loop clients ({@link WriterLoad}) is measured in rounds that alternate
 * which writer goes first; after each captured round the relay is let catch up, so its backlog
 * neither lands on the other writer's round nor escapes the captured round's CPU figures.
 */
public final class WriterSlotBenchmark implements Scenario {

  private static final int CLIENTS = 32;
  private static final Duration CATCH_UP = Duration.ofMinutes(5);
  private static final String CAPTURED = "slot + relay";
  private static final String UNCAPTURED = "no slot";
  private static final String COUNT_OUTBOX = "SELECT count(*) FROM writer.outbox";

  @Override
  public String id() {
    return "B3";
  }

  @Override
  public String title() {
    return "writer commit rate at 32 clients with the slot and a running relay, beside the same"
        + " writer with no slot";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int rounds = bench.pick(5, 1);
    int seconds = bench.pick(10, 2);
    int warmup = bench.pick(3, 1);
    int jitWarmup = bench.pick(15, 1);
    StackContext captured = StackContext.create(WriterSlotBenchmark.class);
    PostgresServer postgres = captured.stack().postgres();
    String plain = "b3_no_slot_" + System.currentTimeMillis();
    postgres.createDatabase(plain);
    String plainSlot = plain + "_slot";
    RelayFixture fixture = new RelayFixture(captured, "b3");
    WriterConfig capturedConfig =
        WriterLoad.config(
            postgres,
            captured.database(),
            Map.of(
                "writer.capture.publication", captured.publication(),
                "writer.capture.slot", captured.slot(),
                "writer.status.enabled", "false"));
    WriterConfig plainConfig =
        WriterLoad.config(postgres, plain, Map.of("writer.status.enabled", "false"));
    try (WriterProcess capturedWriter = WriterProcess.start(capturedConfig);
        WriterProcess plainWriter = WriterProcess.start(plainConfig);
        RelayFixture.Relay relay = fixture.start(Map.of(), RelayJvmOptions.recommended())) {
      // The writer's migration made the slot; without a reader it would only pile up WAL.
      WriterLoad.dropSlot(postgres, plain, plainSlot);
      bench.progress(id(), "writers up; waiting for the relay to stream", true);
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> relay.metric("herald_relay_streaming") == 1.0);

      ProcessGroup processes =
          new ProcessGroup()
              .add("bench JVM (writer + load)", ProcessHandle.current().pid(), false)
              .add("relay", relay.pid(), false)
              .addStack(captured);
      Map<String, WriterProcess> writers = new LinkedHashMap<>();
      writers.put(CAPTURED, capturedWriter);
      writers.put(UNCAPTURED, plainWriter);
      String runId = UUID.randomUUID().toString().substring(0, 8);
      for (Map.Entry<String, WriterProcess> writer : writers.entrySet()) {
        bench.progress(id(), "JIT warm-up of " + writer.getKey() + ", " + jitWarmup + " s", true);
        PlainHttpConnections http = WriterLoad.connections(writer.getValue().apiPort());
        WriterLoad.run(
            CLIENTS,
            Duration.ofSeconds(jitWarmup),
            seq -> WriterLoad.post(http, runId + "-warm", seq),
            new AtomicLong(),
            null);
      }
      awaitCaughtUp(relay, captured, bench);

      Map<String, List<WriterLoad.Result>> results = new LinkedHashMap<>();
      Map<String, Map<String, Double>> cpu = new LinkedHashMap<>();
      Map<String, Long> ops = new LinkedHashMap<>();
      for (int round = 1; round <= rounds; round++) {
        List<String> order = new ArrayList<>(writers.keySet());
        if (round % 2 == 0) {
          Collections.reverse(order);
        }
        for (String side : order) {
          bench.progress(id(), "round " + round + "/" + rounds + ": " + side, true);
          PlainHttpConnections http = WriterLoad.connections(writers.get(side).apiPort());
          String prefix = runId + "-" + round + "-" + (side.equals(CAPTURED) ? "c" : "p");
          WriterLoad.run(
              CLIENTS,
              Duration.ofSeconds(warmup),
              seq -> WriterLoad.post(http, prefix + "-w", seq),
              new AtomicLong(),
              null);
          if (side.equals(CAPTURED)) {
            // The warm-up's rows are published before the readings start.
            awaitCaughtUp(relay, captured, bench);
          }
          Map<String, ProcessStats.Sample> before = processes.sample();
          WriterLoad.Result result =
              WriterLoad.measure(
                  side, CLIENTS, 0, seconds, seq -> WriterLoad.post(http, prefix, seq));
          if (side.equals(CAPTURED)) {
            awaitCaughtUp(relay, captured, bench);
          }
          Map<String, ProcessStats.Sample> after = processes.sample();
          results.computeIfAbsent(side, k -> new ArrayList<>()).add(result);
          long posted = result.ops();
          ops.merge(side, posted, Long::sum);
          Map<String, Double> perThousand = ProcessGroup.cpuSecondsPer1000(before, after, posted);
          Map<String, Double> total = cpu.computeIfAbsent(side, k -> new LinkedHashMap<>());
          perThousand.forEach((name, s) -> total.merge(name, s * posted, Double::sum));
        }
      }
      return result(bench, results, cpu, ops, processes.sample(), rounds, seconds);
    } finally {
      WriterLoad.dropSlot(postgres, captured.database(), captured.slot());
    }
  }

  /** Until the relay has published every outbox row of the captured database. */
  private static void awaitCaughtUp(RelayFixture.Relay relay, StackContext captured, Bench bench)
      throws Exception {
    long rows = outboxRows(captured);
    await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              double published = relay.metric("herald_relay_events_published_total");
              bench.progress(
                  "B3", String.format("relay: %.0f of %d rows published", published, rows), false);
              return published >= rows;
            });
  }

  private static long outboxRows(StackContext captured) throws Exception {
    try (Connection connection = captured.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet count = statement.executeQuery(COUNT_OUTBOX)) {
      count.next();
      return count.getLong(1);
    }
  }

  private ScenarioResult result(
      Bench bench,
      Map<String, List<WriterLoad.Result>> results,
      Map<String, Map<String, Double>> cpu,
      Map<String, Long> ops,
      Map<String, ProcessStats.Sample> end,
      int rounds,
      int seconds) {
    List<List<String>> rows = new ArrayList<>();
    Map<String, Double> figures = new LinkedHashMap<>();
    Map<String, Double> bars = new LinkedHashMap<>();
    for (String side : List.of(UNCAPTURED, CAPTURED)) {
      List<WriterLoad.Result> sideResults = results.get(side);
      double median = WriterLoad.median(sideResults);
      Map<String, Double> perThousand = new LinkedHashMap<>();
      cpu.get(side).forEach((name, s) -> perThousand.put(name, s / ops.get(side)));
      rows.add(
          List.of(
              side,
              WriterLoad.rates(sideResults),
              String.format(Locale.ROOT, "%.0f", median),
              String.format(
                  Locale.ROOT,
                  "%.2f",
                  sideResults.stream().mapToLong(WriterLoad.Result::p50).max().orElse(0) / 1e6),
              String.format(
                  Locale.ROOT,
                  "%.2f",
                  sideResults.stream().mapToLong(WriterLoad.Result::p99).max().orElse(0) / 1e6),
              ProcessGroup.describeCpu(perThousand)));
      String key = side.equals(CAPTURED) ? "slot" : "no_slot";
      figures.put(key + "_commits_per_second", median);
      perThousand.forEach(
          (name, s) ->
              figures.put(
                  key + "_cpu_s_per_1000_" + name.replaceAll("[^a-z]+", "_").replaceAll("_$", ""),
                  s));
      bars.put(side, median);
    }
    double ratio =
        figures.get("slot_commits_per_second") / figures.get("no_slot_commits_per_second");
    figures.put("ratio", ratio);
    List<String> notes = new ArrayList<>();
    notes.add(
        String.format(
            Locale.ROOT,
            "Ratio of the medians, slot + relay / no slot: %.2f (goal >= 0.9): %s.",
            ratio,
            ratio >= 0.9 ? "met" : "missed"));
    notes.add(
        "CPU s per 1,000 commits: each process's user + system time over the side's measured"
            + " rounds (for slot + relay until the relay has published the round's rows), divided"
            + " by the commits; the bench JVM holds both writers and the load generator.");
    notes.add("Peak RSS: " + ProcessGroup.describePeakRss(end) + ".");
    List<Path> plots = new ArrayList<>();
    Charts.bars(
            bench.reportDir().resolve("b3-commit-rate.png"),
            "B3: writer commits/s at 32 clients (median of rounds)",
            "commits/s",
            bars)
        .ifPresent(plots::add);
    return new ScenarioResult(
        id(),
        title(),
        String.format(
            Locale.ROOT,
            "Workload: 32 closed-loop clients POST one new intent each (~700-byte article, one job"
                + " + one outbox row per transaction, retention keep as shipped, pool of 10"
                + " connections), %d alternating rounds of %d s per side after a JIT warm-up; the"
                + " relay with the shipped relay.properties and production JVM options publishes"
                + " to a topic of 3 partitions; %d cores.",
            rounds,
            seconds,
            Runtime.getRuntime().availableProcessors()),
        List.of(
            "writer",
            "commits/s per round",
            "median commits/s",
            "p50 ms (worst round)",
            "p99 ms (worst round)",
            "CPU s per 1,000 commits"),
        rows,
        notes,
        plots,
        figures);
  }
}
