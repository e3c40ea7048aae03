package io.herald.bench.writer;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.bench.suite.PlainHttpConnections;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import io.herald.runtime.db.Databases;
import io.herald.writer.WriterProcess;
import io.herald.writer.config.WriterConfig;
import io.herald.writer.job.JobStore;
import io.herald.writer.outbox.OutboxWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writer throughput and latency against raw JDBC running the same SQL, at 1, 8 and 32 concurrent
 * clients, side by side in one run on the dev stack's PostgreSQL. Not a test: run with {@code
 * ./mvnw -B -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.writer.WriterBenchmark} (prints a table; also written to {@code
 * bench/target/benchmarks/writer.md}). docs/benchmarks-history.md, "Writer: HTTP API against raw
 * JDBC of the same SQL", holds the figures.
 *
 * <p>One operation is one new publication intent: for the writer an HTTP POST (auth, JSON parse,
 * validation, canonical hash, trace context, one transaction); for the baseline one transaction of
 * the same three statements (job insert with ON CONFLICT, outbox insert, outbox delete) through a
 * pool of the same size, with pre-built parameters. The load is {@link WriterLoad}'s: {@link
 * io.herald.bench.suite.PlainHttpConnections} (a keep-alive connection per client thread at once),
 * which costs far less CPU than the JDK client on the cores the writer and PostgreSQL share. Both
 * use the default retention (delete-immediately). System properties: {@code bench.seconds} (per
 * point, default 10), {@code bench.warmup} (seconds before each point, default 5; the run starts
 * with a JIT warm-up three times as long), {@code bench.clients} (default 1,8,32).
 */
public final class WriterBenchmark {

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
    WriterConfig config =
        WriterLoad.config(
            postgres, database, Map.of("writer.outbox.retention", "delete-immediately"));

    try {
      report(compare(config, clientCounts, warmup, seconds), seconds, postgres.version());
    } finally {
      WriterLoad.dropSlot(postgres, database, slot);
    }
  }

  /**
   * Runs writer and baseline at each client count, alternating, and returns the results in pairs.
   */
  static List<WriterLoad.Result> compare(
      WriterConfig config, int[] clientCounts, int warmup, int seconds) throws Exception {
    List<WriterLoad.Result> results = new ArrayList<>();
    try (WriterProcess writer = WriterProcess.start(config);
        HikariDataSource raw =
            Databases.pool("bench-raw", config.database(), new SimpleMeterRegistry())) {
      // Keep-alive connections, one per client thread at once, like a connection-pooling client.
      PlainHttpConnections http = WriterLoad.connections(writer.apiPort());
      String runId = UUID.randomUUID().toString().substring(0, 8);
      // JIT warm-up of both paths before any point is measured; without it the first point (one
      // client) measured the compiler, not the writer.
      int most = Arrays.stream(clientCounts).max().orElse(1);
      AtomicLong warmups = new AtomicLong();
      WriterLoad.run(
          most,
          Duration.ofSeconds(3L * warmup),
          seq -> WriterLoad.post(http, runId + "-warm", seq),
          warmups,
          null);
      WriterLoad.run(
          most,
          Duration.ofSeconds(warmup),
          seq -> rawInsert(raw, runId + "-warm", seq),
          warmups,
          null);
      for (int clients : clientCounts) {
        String prefix = runId + "-" + clients;
        results.add(
            WriterLoad.measure(
                "writer (HTTP)",
                clients,
                warmup,
                seconds,
                seq -> WriterLoad.post(http, prefix, seq)));
        results.add(
            WriterLoad.measure(
                "raw JDBC", clients, warmup, seconds, seq -> rawInsert(raw, prefix, seq)));
      }
    }
    return results;
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
        job.setString(8, WriterLoad.CONTENT);
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
        event.setString(6, "{\"jobId\":\"" + jobId + "\",\"content\":" + WriterLoad.CONTENT + "}");
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

  static void report(List<WriterLoad.Result> results, int seconds, String postgresVersion)
      throws Exception {
    StringBuilder table = new StringBuilder();
    table.append(
        "| clients | writer ops/s | writer p50 ms | writer p99 ms | writer JVM CPU us/op | raw JDBC ops/s | raw p50 ms | raw p99 ms | raw JVM CPU us/op | ratio |\n");
    table.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i + 1 < results.size(); i += 2) {
      WriterLoad.Result writer = results.get(i);
      WriterLoad.Result raw = results.get(i + 1);
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
    WriterLoad.printAndSave("writer.md", text);
  }
}
