package io.herald.bench.writer;

import io.herald.bench.suite.PlainHttpConnections;
import io.herald.config.ConfigSource;
import io.herald.devstack.PostgresServer;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.config.WriterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writer benchmarks' one load mechanism: an in-process writer's configuration on a database of
 * the dev stack's PostgreSQL, closed-loop client threads that each POST a new publication intent as
 * soon as the last one is answered ({@link PlainHttpConnections}: keep-alive connections, one per
 * thread busy at once), and a measured point's rate, latency percentiles and JVM CPU per operation.
 * Used by {@link WriterBenchmark}, {@link OutboxRetentionBenchmark} and the suite's B3 and B4.
 */
final class WriterLoad {

  static final String TOKEN = "bench-token";

  /** A ~700-byte article: what every benchmark intent carries. */
  static final String CONTENT =
      "{\"title\":\"Benchmark article\",\"body\":\""
          + "Lorem ipsum dolor sit amet. ".repeat(20)
          + "\",\"tags\":[\"a\",\"b\",\"c\"],\"author\":{\"id\":42,\"name\":\"Ada\"}}";

  private WriterLoad() {}

  interface Operation {
    void run(long sequence) throws Exception;
  }

  /**
   * @param cpuMicrosPerOp CPU time of this JVM per operation (load generator and writer, or JDBC
   *     client), which, unlike the rate, does not depend on what else runs on the machine
   */
  record Result(
      String name,
      int clients,
      long ops,
      double seconds,
      long p50,
      long p99,
      double cpuMicrosPerOp) {
    double rate() {
      return ops / seconds;
    }
  }

  /**
   * A writer on {@code database} with tenant {@code bench} ({@link #TOKEN}), ports chosen by the
   * system, publication and slot named after the database; {@code overrides} go on top.
   */
  static WriterConfig config(
      PostgresServer postgres, String database, Map<String, String> overrides) {
    Map<String, String> properties = new HashMap<>();
    properties.put("writer.http.host", "127.0.0.1");
    properties.put("writer.http.port", "0");
    properties.put("writer.ops.port", "0");
    properties.put("writer.db.jdbc-url", postgres.jdbcUrl(database));
    properties.put("writer.db.user", postgres.user());
    properties.put("writer.db.password", postgres.password());
    properties.put("writer.capture.publication", database + "_pub");
    properties.put("writer.capture.slot", database + "_slot");
    properties.put("writer.tenants.bench.token-sha256", TenantTokens.sha256Hex(TOKEN));
    properties.putAll(overrides);
    return WriterConfig.from(ConfigSource.of(properties, Map.of()));
  }

  /** Keep-alive connections to one writer, shared by the load's client threads. */
  static PlainHttpConnections connections(int port) {
    return new PlainHttpConnections("127.0.0.1", port);
  }

  /** POSTs a new intent (article {@code w-<prefix>-<seq>}); anything but 201 is an error. */
  static void post(PlainHttpConnections http, String prefix, long seq) throws Exception {
    String body =
        "{\"articleId\":\"w-"
            + prefix
            + "-"
            + seq
            + "\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"content\":"
            + CONTENT
            + "}";
    int status = http.post("/v1/publications", TOKEN, body).status();
    if (status != 201) {
      throw new IllegalStateException("writer answered " + status);
    }
  }

  /** A warm-up of {@code warmupSeconds}, then a measured point of {@code seconds}, printed. */
  static Result measure(
      String name, int clients, int warmupSeconds, int seconds, Operation operation)
      throws Exception {
    AtomicLong sequence = new AtomicLong();
    run(clients, Duration.ofSeconds(warmupSeconds), operation, sequence, null);
    long[][] latencies = new long[clients][];
    long started = System.nanoTime();
    long cpuStarted = processCpuNanos();
    long ops = run(clients, Duration.ofSeconds(seconds), operation, sequence, latencies);
    double elapsed = (System.nanoTime() - started) / 1e9;
    double cpuPerOp = (processCpuNanos() - cpuStarted) / 1e3 / Math.max(1, ops);
    long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
    Result result =
        new Result(
            name, clients, ops, elapsed, percentile(all, 0.50), percentile(all, 0.99), cpuPerOp);
    System.out.printf(
        Locale.ROOT,
        "%-14s clients=%2d  %8.0f ops/s  p50 %6.2f ms  p99 %6.2f ms  JVM CPU %5.0f us/op%n",
        name,
        clients,
        result.rate(),
        result.p50() / 1e6,
        result.p99() / 1e6,
        result.cpuMicrosPerOp());
    return result;
  }

  /**
   * Runs {@code operation} from {@code clients} threads for {@code duration}; returns the count.
   */
  static long run(
      int clients, Duration duration, Operation operation, AtomicLong sequence, long[][] latencies)
      throws Exception {
    long deadline = System.nanoTime() + duration.toNanos();
    ExecutorService threads = Executors.newFixedThreadPool(clients);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        futures.add(
            threads.submit(
                () -> {
                  long[] samples = new long[1 << 16];
                  int n = 0;
                  while (System.nanoTime() < deadline) {
                    long start = System.nanoTime();
                    operation.run(sequence.incrementAndGet());
                    if (n == samples.length) {
                      samples = Arrays.copyOf(samples, n * 2);
                    }
                    samples[n++] = System.nanoTime() - start;
                  }
                  return Arrays.copyOf(samples, n);
                }));
      }
      long total = 0;
      for (int c = 0; c < clients; c++) {
        long[] samples = futures.get(c).get();
        total += samples.length;
        if (latencies != null) {
          latencies[c] = samples;
        }
      }
      return total;
    } finally {
      threads.shutdownNow();
    }
  }

  /** The median rate of {@code results}. */
  static double median(List<Result> results) {
    double[] rates = results.stream().mapToDouble(Result::rate).sorted().toArray();
    return rates.length % 2 == 1
        ? rates[rates.length / 2]
        : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
  }

  /** The rates of {@code results}, comma-separated, in their order. */
  static String rates(List<Result> results) {
    StringBuilder text = new StringBuilder();
    for (Result result : results) {
      text.append(text.isEmpty() ? "" : ", ").append(Math.round(result.rate()));
    }
    return text.toString();
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  /** Prints a benchmark's report and keeps it as {@code target/benchmarks/<fileName>}. */
  static void printAndSave(String fileName, String text) throws IOException {
    System.out.println();
    System.out.println(text);
    Path out = Path.of("target", "benchmarks", fileName);
    Files.createDirectories(out.getParent());
    Files.writeString(out, text);
  }

  /**
   * Drops {@code slot} if it exists; a failure is printed, not thrown, because it runs in the
   * benchmark's {@code finally} and must not hide the benchmark's own failure.
   */
  static void dropSlot(PostgresServer postgres, String database, String slot) {
    try (Connection connection =
            DriverManager.getConnection(
                postgres.jdbcUrl(database), postgres.user(), postgres.password());
        PreparedStatement drop =
            connection.prepareStatement(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE slot_name = ?")) {
      drop.setString(1, slot);
      drop.execute();
    } catch (Exception e) {
      System.err.println("Could not drop benchmark slot " + slot + ": " + e);
    }
  }
}
