package io.herald.bench.writer;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.config.ConfigSource;
import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import io.herald.runtime.db.Databases;
import io.herald.writer.WriterProcess;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.config.WriterConfig;
import io.herald.writer.job.JobStore;
import io.herald.writer.outbox.OutboxWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writer throughput and latency against raw JDBC running the same SQL, at 1, 8 and 32 concurrent
 * clients, side by side in one run on the dev stack's PostgreSQL. Not a test: run with {@code
 * ./mvnw -B -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.writer.WriterBenchmark} (prints a table; also written to {@code
 * bench/target/benchmarks/writer.md}). BENCHMARKS.md, "Writer: HTTP API against raw JDBC of the
 * same SQL", holds the figures.
 *
 * <p>One operation is one new publication intent: for the writer an HTTP POST (auth, JSON parse,
 * validation, canonical hash, trace context, one transaction); for the baseline one transaction of
 * the same three statements (job insert with ON CONFLICT, outbox insert, outbox delete) through a
 * pool of the same size, with pre-built parameters. The load generator is {@link PlainHttpClient}
 * (one keep-alive connection per client thread), which costs far less CPU than the JDK client on
 * the cores the writer and PostgreSQL share. Both use the default retention (delete-immediately).
 * System properties: {@code bench.seconds} (per point, default 10), {@code bench.warmup} (seconds
 * before each point, default 5; the run starts with a JIT warm-up three times as long), {@code
 * bench.clients} (default 1,8,32).
 */
public final class WriterBenchmark {

  static final String TOKEN = "bench-token";
  private static final String CONTENT =
      "{\"title\":\"Benchmark article\",\"body\":\""
          + "Lorem ipsum dolor sit amet. ".repeat(20)
          + "\",\"tags\":[\"a\",\"b\",\"c\"],\"author\":{\"id\":42,\"name\":\"Ada\"}}";

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

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("bench.seconds", 10);
    int warmup = Integer.getInteger("bench.warmup", 5);
    int[] clientCounts =
        Arrays.stream(System.getProperty("bench.clients", "1,8,32").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();

    PostgresServer postgres = HeraldStack.shared().postgres();
    String database = "writer_bench_" + System.currentTimeMillis();
    postgres.createDatabase(database);
    String slot = database + "_slot";
    Map<String, String> properties = new HashMap<>();
    properties.put("writer.http.host", "127.0.0.1");
    properties.put("writer.http.port", "0");
    properties.put("writer.ops.port", "0");
    properties.put("writer.db.jdbc-url", postgres.jdbcUrl(database));
    properties.put("writer.db.user", postgres.user());
    properties.put("writer.db.password", postgres.password());
    properties.put("writer.capture.publication", database + "_pub");
    properties.put("writer.capture.slot", slot);
    properties.put("writer.outbox.retention", "delete-immediately");
    properties.put("writer.tenants.bench.token-sha256", TenantTokens.sha256Hex(TOKEN));
    WriterConfig config = WriterConfig.from(ConfigSource.of(properties, Map.of()));

    try {
      report(compare(config, clientCounts, warmup, seconds), seconds, postgres.version());
    } finally {
      dropSlot(postgres, database, slot);
    }
  }

  /**
   * Runs writer and baseline at each client count, alternating, and returns the results in pairs.
   */
  static List<Result> compare(WriterConfig config, int[] clientCounts, int warmup, int seconds)
      throws Exception {
    List<Result> results = new ArrayList<>();
    try (WriterProcess writer = WriterProcess.start(config);
        HikariDataSource raw =
            Databases.pool("bench-raw", config.database(), new SimpleMeterRegistry())) {
      // One keep-alive connection per client thread, like a connection-pooling client.
      ThreadLocal<PlainHttpClient> http =
          ThreadLocal.withInitial(() -> new PlainHttpClient("127.0.0.1", writer.apiPort()));
      String runId = UUID.randomUUID().toString().substring(0, 8);
      // JIT warm-up of both paths before any point is measured; without it the first point (one
      // client) measured the compiler, not the writer.
      int most = Arrays.stream(clientCounts).max().orElse(1);
      AtomicLong warmups = new AtomicLong();
      run(
          most,
          Duration.ofSeconds(3L * warmup),
          seq -> post(http.get(), runId + "-warm", seq),
          warmups,
          null);
      run(
          most,
          Duration.ofSeconds(warmup),
          seq -> rawInsert(raw, runId + "-warm", seq),
          warmups,
          null);
      for (int clients : clientCounts) {
        String prefix = runId + "-" + clients;
        results.add(
            measure(
                "writer (HTTP)", clients, warmup, seconds, seq -> post(http.get(), prefix, seq)));
        results.add(
            measure("raw JDBC", clients, warmup, seconds, seq -> rawInsert(raw, prefix, seq)));
      }
    }
    return results;
  }

  static void post(PlainHttpClient http, String prefix, long seq) throws Exception {
    String body =
        "{\"articleId\":\"w-"
            + prefix
            + "-"
            + seq
            + "\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"content\":"
            + CONTENT
            + "}";
    int status = http.post("/v1/publications", TOKEN, body);
    if (status != 201) {
      throw new IllegalStateException("writer answered " + status);
    }
  }

  /** The writer's statements, parameters pre-built: what the database alone costs. */
  private static void rawInsert(HikariDataSource pool, String prefix, long seq) throws Exception {
    PublicationKey key = new PublicationKey("bench", "j-" + prefix + "-" + seq, "r-1", "dest-a");
    UUID jobId = UUID.randomUUID();
    UUID eventId = UUID.randomUUID();
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    String hash = "0".repeat(64);
    String idempotencyKey = key.idempotencyKey();
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement job = connection.prepareStatement(JobStore.INSERT_JOB);
          PreparedStatement event = connection.prepareStatement(OutboxWriter.INSERT);
          PreparedStatement delete = connection.prepareStatement(OutboxWriter.DELETE)) {
        job.setObject(1, jobId);
        job.setString(2, key.tenant());
        job.setString(3, key.articleId());
        job.setString(4, key.revisionId());
        job.setString(5, key.destination());
        job.setString(6, idempotencyKey);
        job.setString(7, hash);
        job.setString(8, CONTENT);
        job.setString(9, "REQUESTED");
        job.setString(10, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        job.setString(11, null);
        job.setObject(12, now);
        job.setObject(13, now);
        if (job.executeUpdate() != 1) {
          throw new IllegalStateException("key taken: " + key);
        }
        event.setObject(1, eventId);
        event.setString(2, "publication");
        event.setString(3, key.aggregateId());
        event.setString(4, EventTypes.PUBLICATION_REQUESTED);
        event.setString(5, key.tenant());
        event.setString(6, "{\"jobId\":\"" + jobId + "\",\"content\":" + CONTENT + "}");
        event.setString(7, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        event.setString(8, null);
        event.setObject(9, now);
        event.executeUpdate();
        delete.setObject(1, eventId);
        delete.executeUpdate();
      }
      connection.commit();
    }
  }

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

  static void report(List<Result> results, int seconds, String postgresVersion) throws Exception {
    StringBuilder table = new StringBuilder();
    table.append(
        "| clients | writer ops/s | writer p50 ms | writer p99 ms | writer JVM CPU us/op | raw JDBC ops/s | raw p50 ms | raw p99 ms | raw JVM CPU us/op | ratio |\n");
    table.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i + 1 < results.size(); i += 2) {
      Result writer = results.get(i);
      Result raw = results.get(i + 1);
      table.append(
          String.format(
              Locale.ROOT,
              "| %d | %.0f | %.2f | %.2f | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f |%n",
              writer.clients(),
              writer.rate(),
              writer.p50() / 1e6,
              writer.p99() / 1e6,
              writer.cpuMicrosPerOp(),
              raw.rate(),
              raw.p50() / 1e6,
              raw.p99() / 1e6,
              raw.cpuMicrosPerOp(),
              writer.rate() / raw.rate()));
    }
    String text =
        "Writer vs raw JDBC, "
            + seconds
            + " s per point, "
            + Runtime.getRuntime().availableProcessors()
            + " CPUs, PostgreSQL "
            + postgresVersion
            + " on the same machine\n\n"
            + table;
    printAndSave("writer.md", text);
  }

  /** Prints a benchmark's report and keeps it as {@code target/benchmarks/<fileName>}. */
  static void printAndSave(String fileName, String text) throws IOException {
    System.out.println();
    System.out.println(text);
    Path out = Path.of("target", "benchmarks", fileName);
    Files.createDirectories(out.getParent());
    Files.writeString(out, text);
  }

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
