package io.herald.bench.writer;

import io.herald.bench.suite.Bench;
import io.herald.bench.suite.Charts;
import io.herald.bench.suite.Pgbench;
import io.herald.bench.suite.PlainHttpConnections;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.common.event.EventTypes;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import io.herald.writer.WriterProcess;
import io.herald.writer.job.JobStore;
import io.herald.writer.outbox.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * B4: the writer's HTTP API at 32 clients beside {@code pgbench -f} running the writer's own SQL
 * ({@link JobStore#INSERT_JOB} and {@link OutboxWriter#INSERT} in one transaction, the statements
 * of the shipped retention {@code keep}) at 32 connections, on one database of the stack's
 * PostgreSQL with no slot, in alternating rounds. pgbench is the floor of what a client must spend:
 * C, prepared statements, no HTTP, no JSON, no validation, 32 connections where the writer pools
 * 10.
 */
public final class WriterPgbenchBenchmark implements Scenario {

  private static final int CLIENTS = 32;
  private static final String TRACE_PARENT =
      "'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'";

  @Override
  public String id() {
    return "B4";
  }

  @Override
  public String title() {
    return "writer HTTP at 32 clients, beside pgbench -f of the same SQL at 32 connections";
  }

  /**
   * One intent's transaction for pgbench: the writer's statements with pre-built values. The
   * article content is the benchmark's, with a space after each colon, which pgbench would
   * otherwise read as a variable ({@code "id":42}); the jsonb stored is the same.
   */
  static String script(String runId) {
    String content = "'" + pgbenchContent() + "'";
    String article = "'b4-" + runId + "-' || :client_id || '-' || :n";
    String job =
        Pgbench.fill(
            JobStore.INSERT_JOB,
            List.of(
                "gen_random_uuid()",
                "'bench'",
                article,
                "'r-1'",
                "'dest-a'",
                "md5(random()::text) || md5(random()::text)",
                "'" + "0".repeat(64) + "'",
                content,
                "'REQUESTED'",
                TRACE_PARENT,
                "NULL",
                "now()",
                "now()"));
    String event =
        Pgbench.fill(
            OutboxWriter.INSERT,
            List.of(
                "gen_random_uuid()",
                "'publication'",
                "'bench/' || " + article + " || '/r-1/dest-a'",
                "'" + EventTypes.PUBLICATION_REQUESTED + "'",
                "'bench'",
                "'{\"jobId\": \"" + new UUID(0, 0) + "\", \"content\": " + pgbenchContent() + "}'",
                TRACE_PARENT,
                "NULL",
                "now()"));
    return "\\set n random(1, 2000000000)\nBEGIN;\n"
        + job.strip()
        + ";\n"
        + event.strip()
        + ";\nCOMMIT;\n";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    Pgbench.locate(); // before anything starts: a missing pgbench fails with the package to install
    int rounds = bench.pick(3, 1);
    int seconds = bench.pick(10, 3);
    int warmup = bench.pick(3, 1);
    int jitWarmup = bench.pick(15, 1);
    StackContext stack = StackContext.create(WriterPgbenchBenchmark.class);
    PostgresServer postgres = stack.stack().postgres();
    String runId = UUID.randomUUID().toString().substring(0, 8);
    Path script = Files.createTempFile("b4-writer", ".sql");
    Files.writeString(script, script(runId), StandardCharsets.UTF_8);
    try (WriterProcess writer =
        WriterProcess.start(
            WriterLoad.config(
                postgres,
                stack.database(),
                Map.of(
                    "writer.capture.publication", stack.publication(),
                    "writer.capture.slot", stack.slot(),
                    "writer.status.enabled", "false")))) {
      // Neither side is captured: B3 measures what the slot costs.
      WriterLoad.dropSlot(postgres, stack.database(), stack.slot());
      PlainHttpConnections http = WriterLoad.connections(writer.apiPort());
      bench.progress(id(), "writer up; JIT warm-up " + jitWarmup + " s", true);
      WriterLoad.run(
          CLIENTS,
          Duration.ofSeconds(jitWarmup),
          seq -> WriterLoad.post(http, runId + "-warm", seq),
          new AtomicLong(),
          null);
      ProcessGroup processes =
          new ProcessGroup()
              .add("bench JVM (writer + load)", ProcessHandle.current().pid(), false)
              .addStack(stack);
      List<WriterLoad.Result> writerResults = new ArrayList<>();
      List<Pgbench.Run> pgbenchRuns = new ArrayList<>();
      Map<String, Double> writerCpu = new LinkedHashMap<>();
      Map<String, Double> pgbenchCpu = new LinkedHashMap<>();
      long writerOps = 0;
      long pgbenchOps = 0;
      for (int round = 1; round <= rounds; round++) {
        for (boolean writerSide : round % 2 == 1 ? List.of(true, false) : List.of(false, true)) {
          if (writerSide) {
            bench.progress(id(), "round " + round + "/" + rounds + ": writer", true);
            String prefix = runId + "-" + round;
            WriterLoad.run(
                CLIENTS,
                Duration.ofSeconds(warmup),
                seq -> WriterLoad.post(http, prefix + "-w", seq),
                new AtomicLong(),
                null);
            Map<String, ProcessStats.Sample> before = processes.sample();
            WriterLoad.Result result =
                WriterLoad.measure(
                    "writer (HTTP)",
                    CLIENTS,
                    0,
                    seconds,
                    seq -> WriterLoad.post(http, prefix, seq));
            Map<String, ProcessStats.Sample> after = processes.sample();
            writerResults.add(result);
            writerOps += result.ops();
            accumulate(
                writerCpu,
                ProcessGroup.cpuSecondsPer1000(before, after, result.ops()),
                result.ops());
          } else {
            bench.progress(id(), "round " + round + "/" + rounds + ": pgbench", true);
            Map<String, ProcessStats.Sample> before = processes.sample();
            Pgbench.Run run =
                Pgbench.run(stack, script, CLIENTS, seconds, List.of("-M", "prepared"));
            Map<String, ProcessStats.Sample> after = processes.sample();
            pgbenchRuns.add(run);
            pgbenchOps += run.transactions();
            Map<String, Double> perThousand = new LinkedHashMap<>();
            perThousand.put(
                "pgbench", run.usage().cpuSeconds() * 1000 / Math.max(1, run.transactions()));
            Map<String, Double> stackCpu =
                ProcessGroup.cpuSecondsPer1000(before, after, run.transactions());
            stackCpu.remove("bench JVM (writer + load)"); // idle, and it reaps pgbench's time
            perThousand.putAll(stackCpu);
            accumulate(pgbenchCpu, perThousand, run.transactions());
            bench.progress(id(), String.format(Locale.ROOT, "pgbench: %.0f tps", run.tps()), true);
          }
        }
      }
      return result(
          bench,
          writerResults,
          pgbenchRuns,
          divide(writerCpu, writerOps),
          divide(pgbenchCpu, pgbenchOps),
          processes.sample(),
          rounds,
          seconds);
    } finally {
      Files.deleteIfExists(script);
    }
  }

  private static String pgbenchContent() {
    return WriterLoad.CONTENT.replace(":", ": ");
  }

  /** Adds {@code perThousand} weighted by {@code events}, for an average over the rounds. */
  private static void accumulate(
      Map<String, Double> total, Map<String, Double> perThousand, long events) {
    perThousand.forEach((name, s) -> total.merge(name, s * events, Double::sum));
  }

  private static Map<String, Double> divide(Map<String, Double> total, long events) {
    Map<String, Double> average = new LinkedHashMap<>();
    total.forEach((name, s) -> average.put(name, s / Math.max(1, events)));
    return average;
  }

  private ScenarioResult result(
      Bench bench,
      List<WriterLoad.Result> writerResults,
      List<Pgbench.Run> pgbenchRuns,
      Map<String, Double> writerCpu,
      Map<String, Double> pgbenchCpu,
      Map<String, ProcessStats.Sample> end,
      int rounds,
      int seconds) {
    double writerMedian = WriterLoad.median(writerResults);
    double[] tps = pgbenchRuns.stream().mapToDouble(Pgbench.Run::tps).sorted().toArray();
    double pgbenchMedian =
        tps.length % 2 == 1
            ? tps[tps.length / 2]
            : (tps[tps.length / 2 - 1] + tps[tps.length / 2]) / 2;
    double ratio = writerMedian / pgbenchMedian;
    StringBuilder pgbenchRates = new StringBuilder();
    for (Pgbench.Run run : pgbenchRuns) {
      pgbenchRates.append(pgbenchRates.isEmpty() ? "" : ", ").append(Math.round(run.tps()));
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "writer, POST /v1/publications",
            WriterLoad.rates(writerResults),
            String.format(Locale.ROOT, "%.0f", writerMedian),
            ProcessGroup.describeCpu(writerCpu)));
    rows.add(
        List.of(
            "pgbench -M prepared, same SQL",
            pgbenchRates.toString(),
            String.format(Locale.ROOT, "%.0f", pgbenchMedian),
            ProcessGroup.describeCpu(pgbenchCpu)));
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("writer_commits_per_second", writerMedian);
    figures.put("pgbench_commits_per_second", pgbenchMedian);
    figures.put("ratio", ratio);
    writerCpu.forEach((name, s) -> figures.put("writer_cpu_s_per_1000_" + key(name), s));
    pgbenchCpu.forEach((name, s) -> figures.put("pgbench_cpu_s_per_1000_" + key(name), s));
    long pgbenchPeak =
        pgbenchRuns.stream().mapToLong(run -> run.usage().peakRssBytes()).max().orElse(0);
    List<String> notes = new ArrayList<>();
    notes.add(
        String.format(
            Locale.ROOT,
            "Ratio of the medians, writer / pgbench: %.2f (goal >= 0.8): %s.",
            ratio,
            ratio >= 0.8 ? "met" : "missed"));
    notes.add(
        "CPU s per 1,000 intents over the measured rounds: the bench JVM holds the writer and its"
            + " load generator; pgbench's own time is its process's; postgres is the postmaster"
            + " with its backends.");
    notes.add(
        "Peak RSS: "
            + ProcessGroup.describePeakRss(end)
            + ", pgbench "
            + (pgbenchPeak >> 20)
            + " MiB.");
    List<Path> plots = new ArrayList<>();
    Map<String, Double> bars = new LinkedHashMap<>();
    bars.put("writer (HTTP)", writerMedian);
    bars.put("pgbench, same SQL", pgbenchMedian);
    Charts.bars(
            bench.reportDir().resolve("b4-writer-pgbench.png"),
            "B4: intents stored per second at 32 clients (median of rounds)",
            "intents/s",
            bars)
        .ifPresent(plots::add);
    return new ScenarioResult(
        id(),
        title(),
        String.format(
            Locale.ROOT,
            "Workload: one new intent per request (~700-byte article; job insert with ON"
                + " CONFLICT + outbox insert, retention keep as shipped), no slot; the writer with"
                + " 32 closed-loop HTTP clients and its pool of 10 connections, concurrent requests"
                + " sharing transactions as shipped (writer.group-commit.*); pgbench with 32"
                + " connections on 2 threads (-M prepared), one intent per transaction; %d"
                + " alternating rounds of %d s after a JIT warm-up; %d cores.",
            rounds,
            seconds,
            Runtime.getRuntime().availableProcessors()),
        List.of("side", "intents/s per round", "median intents/s", "CPU s per 1,000 intents"),
        rows,
        notes,
        plots,
        figures);
  }

  private static String key(String processName) {
    return processName.replaceAll("[^a-z]+", "_").replaceAll("_$", "");
  }
}
