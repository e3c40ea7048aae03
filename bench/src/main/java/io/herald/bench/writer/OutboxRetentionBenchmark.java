package io.herald.bench.writer;

import io.herald.bench.suite.PlainHttpConnections;
import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import io.herald.writer.WriterProcess;
import io.herald.writer.config.WriterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writer's commit rate with a retained outbox window ({@code writer.outbox.retention=keep})
 * against deleting each row in its inserting transaction ({@code delete-immediately}), in one run:
 * two writers on two databases of the dev stack's PostgreSQL, each with its own slot (as in
 * production, the slot retains the WAL of every row), measured in alternating rounds at each client
 * count so that the machine's drift hits both alike. The kept rows accumulate over the run, as they
 * would within a retention window; nothing is purged during it (the window is a day). Not a test:
 * run with {@code ./mvnw -B -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.writer.OutboxRetentionBenchmark}; docs/benchmarks-history.md,
 * "Writer: outbox retention", holds the figures. System properties: {@code bench.seconds} (per
 * round, default 8), {@code bench.warmup} (default 3), {@code bench.rounds} (default 3), {@code
 * bench.clients} (default 8,32), {@code bench.modes} (the order within each point, default
 * delete-immediately,keep).
 */
public final class OutboxRetentionBenchmark {

  /** Measured in this order at each point; {@code bench.modes} reverses it to check for bias. */
  private static final List<String> MODES =
      List.of(System.getProperty("bench.modes", "delete-immediately,keep").split(","));

  private OutboxRetentionBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("bench.seconds", 8);
    int warmup = Integer.getInteger("bench.warmup", 3);
    int rounds = Integer.getInteger("bench.rounds", 3);
    int[] clientCounts =
        Arrays.stream(System.getProperty("bench.clients", "8,32").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    PostgresServer postgres = HeraldStack.shared().postgres();
    long stamp = System.currentTimeMillis();
    List<String> databases = new ArrayList<>();
    List<WriterProcess> writers = new ArrayList<>();
    Map<String, List<WriterLoad.Result>> results = new HashMap<>();
    try {
      for (String mode : MODES) {
        String database = "retention_bench_" + mode.replace('-', '_') + "_" + stamp;
        postgres.createDatabase(database);
        databases.add(database);
        writers.add(WriterProcess.start(config(postgres, database, mode)));
      }
      String runId = UUID.randomUUID().toString().substring(0, 8);
      for (int w = 0; w < writers.size(); w++) {
        PlainHttpConnections http = WriterLoad.connections(writers.get(w).apiPort());
        String prefix = runId + "-warm-" + w;
        WriterLoad.run(
            Arrays.stream(clientCounts).max().orElse(1),
            Duration.ofSeconds(3L * warmup),
            seq -> WriterLoad.post(http, prefix, seq),
            new AtomicLong(),
            null);
      }
      for (int round = 1; round <= rounds; round++) {
        for (int clients : clientCounts) {
          for (int w = 0; w < writers.size(); w++) {
            String mode = MODES.get(w);
            PlainHttpConnections http = WriterLoad.connections(writers.get(w).apiPort());
            String prefix = runId + "-" + round + "-" + clients + "-" + w;
            results
                .computeIfAbsent(mode + "@" + clients, k -> new ArrayList<>())
                .add(
                    WriterLoad.measure(
                        mode, clients, warmup, seconds, seq -> WriterLoad.post(http, prefix, seq)));
          }
        }
      }
      report(results, clientCounts, rounds, seconds, postgres.version());
    } finally {
      for (WriterProcess writer : writers) {
        writer.close();
      }
      for (int i = 0; i < databases.size(); i++) {
        WriterLoad.dropSlot(postgres, databases.get(i), databases.get(i) + "_slot");
      }
    }
  }

  private static WriterConfig config(PostgresServer postgres, String database, String mode) {
    return WriterLoad.config(
        postgres,
        database,
        Map.of(
            "writer.outbox.retention",
            mode,
            "writer.outbox.keep-days",
            "1",
            "writer.status.enabled",
            "false"));
  }

  private static void report(
      Map<String, List<WriterLoad.Result>> results,
      int[] clientCounts,
      int rounds,
      int seconds,
      String postgresVersion)
      throws Exception {
    StringBuilder table =
        new StringBuilder(
            "| clients | delete-immediately ops/s (rounds) | keep ops/s (rounds) | keep / delete"
                + " (median) | delete p99 ms | keep p99 ms | delete JVM CPU us/op | keep JVM CPU"
                + " us/op |\n| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int clients : clientCounts) {
      List<WriterLoad.Result> delete = results.get("delete-immediately@" + clients);
      List<WriterLoad.Result> keep = results.get("keep@" + clients);
      table.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %.2f | %.2f | %.2f | %.0f | %.0f |%n",
              clients,
              WriterLoad.rates(delete),
              WriterLoad.rates(keep),
              WriterLoad.median(keep) / WriterLoad.median(delete),
              delete.stream().mapToLong(WriterLoad.Result::p99).max().orElse(0) / 1e6,
              keep.stream().mapToLong(WriterLoad.Result::p99).max().orElse(0) / 1e6,
              delete.stream().mapToDouble(WriterLoad.Result::cpuMicrosPerOp).average().orElse(0),
              keep.stream().mapToDouble(WriterLoad.Result::cpuMicrosPerOp).average().orElse(0)));
    }
    String text =
        "Writer outbox retention, "
            + rounds
            + " alternating rounds of "
            + seconds
            + " s per point, "
            + Runtime.getRuntime().availableProcessors()
            + " CPUs, PostgreSQL "
            + postgresVersion
            + "\n\n"
            + table;
    WriterLoad.printAndSave("writer-retention.md", text);
  }
}
