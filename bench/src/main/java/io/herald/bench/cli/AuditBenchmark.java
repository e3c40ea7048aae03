package io.herald.bench.cli;

import com.sun.net.httpserver.HttpServer;
import io.herald.bench.suite.Bench;
import io.herald.bench.suite.ProcessGroup;
import io.herald.bench.suite.ProcessStats;
import io.herald.bench.suite.Scenario;
import io.herald.bench.suite.ScenarioResult;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.process.HeraldCommandLine;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Time and peak RSS of {@code herald audit} over a large history (printed, never asserted):
 * docs/benchmarks-history.md, "herald audit". Builds N jobs, N publication events in Kafka, N
 * deliveries and inbox rows, N status events and a listing of N remote articles, all consistent,
 * then runs the command as a separate OS process with a small heap and samples its {@code VmHWM}.
 * The suite's B8 ({@code BenchMain --scenario B8}: a million events, quick 20,000); also on its
 * own: {@code ./mvnw -B -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.cli.AuditBenchmark}, system properties {@code herald.bench.events}
 * (default 1000000) and {@code herald.bench.audit-heap} (default 128m).
 */
public final class AuditBenchmark implements Scenario {

  private static final String HANDLER = "consumer.delivery-intake";
  private static final String HASH = "a".repeat(64);
  private static final String HEAP = "128m";
  private static final Duration AUDIT_TIMEOUT = Duration.ofMinutes(30);

  /** One audit run: how long the history took to build, and what the audit used. */
  record Audit(
      int events,
      String heap,
      double buildSeconds,
      ProcessStats.Finished usage,
      String summary,
      Map<String, Double> stackCpuPer1000,
      Map<String, ProcessStats.Sample> stackEnd) {}

  public static void main(String[] args) throws Exception {
    int events = Integer.getInteger("herald.bench.events", 1_000_000);
    String heap = System.getProperty("herald.bench.audit-heap", HEAP);
    Audit audit = audit(StackContext.create(AuditBenchmark.class), events, heap);
    System.out.printf(
        "herald audit over %,d events (-Xmx%s): exit %d, %.1f s, peak RSS %,d MiB%n",
        events,
        heap,
        audit.usage().exitCode(),
        audit.usage().seconds(),
        audit.usage().peakRssBytes() >> 20);
    System.out.println(audit.summary());
    System.exit(0);
  }

  @Override
  public String id() {
    return "B8";
  }

  @Override
  public String title() {
    return "herald audit over 1,000,000 events: time and peak RSS";
  }

  @Override
  public ScenarioResult run(Bench bench) throws Exception {
    int events = bench.pick(1_000_000, 20_000);
    bench.progress(id(), "building a consistent history of " + events + " events", true);
    Audit audit = audit(StackContext.create(AuditBenchmark.class), events, HEAP);
    if (audit.usage().exitCode() != 0) {
      throw new IllegalStateException(
          "herald audit exited with " + audit.usage().exitCode() + ": " + audit.summary());
    }
    double perThousand = audit.usage().cpuSeconds() * 1000 / events;
    long peakMib = audit.usage().peakRssBytes() >> 20;
    Map<String, Double> cpu = new LinkedHashMap<>();
    cpu.put("herald audit", perThousand);
    cpu.putAll(audit.stackCpuPer1000());
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("events", (double) events);
    figures.put("audit_seconds", audit.usage().seconds());
    figures.put("audit_peak_rss_mib", (double) peakMib);
    figures.put("audit_cpu_s_per_1000_events", perThousand);
    figures.put("build_seconds", audit.buildSeconds());
    List<String> notes = new ArrayList<>();
    notes.add(
        String.format(
            Locale.ROOT,
            "Peak RSS of herald audit: %d MiB (goal <= 300 MiB): %s; of the stack: %s.",
            peakMib,
            peakMib <= 300 ? "met" : "missed",
            ProcessGroup.describePeakRss(audit.stackEnd())));
    notes.add("CPU s per 1,000 events over the audit: " + ProcessGroup.describeCpu(cpu) + ".");
    notes.add("The audit's last line: `" + audit.summary() + "`.");
    return new ScenarioResult(
        id(),
        title(),
        String.format(
            Locale.ROOT,
            "Workload: a consistent history of %,d jobs, publication events in Kafka (3"
                + " partitions), deliveries and inbox rows, status events and a listing of as many"
                + " remote articles (built in %.0f s, not counted); the audit a separate OS process"
                + " with -Xmx%s; %d cores.",
            events,
            audit.buildSeconds(),
            audit.heap(),
            Runtime.getRuntime().availableProcessors()),
        List.of("events", "wall s", "peak RSS MiB", "CPU s per 1,000 events", "exit"),
        List.of(
            List.of(
                String.format(Locale.ROOT, "%,d", events),
                String.format(Locale.ROOT, "%.1f", audit.usage().seconds()),
                Long.toString(peakMib),
                String.format(Locale.ROOT, "%.3f", perThousand),
                Integer.toString(audit.usage().exitCode()))),
        notes,
        List.of(),
        figures);
  }

  /** Builds the history of {@code events} on a fresh context and runs the audit over it. */
  static Audit audit(StackContext stack, int events, String heap) throws Exception {
    String publicationTopic = stack.topic("publication-events");
    String statusTopic = stack.topic("delivery-events");
    String dlqTopic = stack.topic("dlq");
    String group = stack.groupId("consumer");
    stack.stack().kafka().createTopic(publicationTopic, 3);
    stack.stack().kafka().createTopic(statusTopic, 3);
    stack.stack().kafka().createTopic(dlqTopic, 1);

    long t0 = System.nanoTime();
    fillDatabases(stack, events);
    long t1 = System.nanoTime();
    fillTopics(stack.bootstrapServers(), publicationTopic, statusTopic, events);
    commitGroup(stack.bootstrapServers(), publicationTopic, group);
    long t2 = System.nanoTime();
    System.out.printf(
        "built %,d jobs, deliveries and inbox rows in %.1f s; %,d events and %,d status events in"
            + " %.1f s%n",
        events, seconds(t1 - t0), events, events, seconds(t2 - t1));

    HttpServer listing = listing(events);
    try {
      Map<String, String> env = new HashMap<>();
      for (String process : List.of("WRITER", "CONSUMER")) {
        env.put("HERALD_" + process + "_DB_JDBC_URL", stack.jdbcUrl());
        env.put("HERALD_" + process + "_DB_USER", stack.user());
        env.put("HERALD_" + process + "_DB_PASSWORD", stack.password());
        env.put("HERALD_" + process + "_KAFKA_BOOTSTRAP_SERVERS", stack.bootstrapServers());
      }
      env.put("HERALD_WRITER_STATUS_TOPIC", statusTopic);
      env.put("HERALD_CONSUMER_TOPICS_PUBLICATION_EVENTS", publicationTopic);
      env.put("HERALD_CONSUMER_TOPICS_DLQ", dlqTopic);
      env.put("HERALD_CONSUMER_KAFKA_GROUP_ID", group);
      String url = "http://127.0.0.1:" + listing.getAddress().getPort() + "/articles";
      List<String> command =
          ChildJvm.builder("herald", HeraldCommandLine.MAIN_CLASS)
              .jvmOptions(List.of("-Xmx" + heap, "--enable-native-access=ALL-UNNAMED"))
              .logbackConfig(ShippedConfig.of("cli").logbackFile())
              .args(
                  "--config-dir",
                  ShippedConfig.of("cli").file().getParent().toString(),
                  "audit",
                  "--remote-articles",
                  "dest-a=" + url)
              .command();
      Path out = Files.createTempFile("herald-audit-bench", ".out");
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile());
      builder.redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().keySet().removeIf(name -> name.startsWith("HERALD_"));
      builder.environment().putAll(env);
      ProcessGroup stackProcesses = new ProcessGroup().addStack(stack);
      Map<String, ProcessStats.Sample> before = stackProcesses.sample();
      ProcessStats.Finished usage = ProcessStats.watch(builder.start(), AUDIT_TIMEOUT);
      Map<String, ProcessStats.Sample> after = stackProcesses.sample();
      List<String> lines = Files.readAllLines(out);
      Files.deleteIfExists(out);
      return new Audit(
          events,
          heap,
          seconds(t2 - t0),
          usage,
          lines.isEmpty() ? "(no output)" : lines.getLast(),
          ProcessGroup.cpuSecondsPer1000(before, after, events),
          after);
    } finally {
      listing.stop(0);
    }
  }

  /** Jobs, deliveries and inbox rows with ids derived from the row number, as the events have. */
  private static void fillDatabases(StackContext stack, int events) throws Exception {
    CaptureSettings capture = new CaptureSettings(stack.publication(), stack.slot());
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.CONSUMER, capture);
    try (Connection db = stack.dataSource().getConnection();
        Statement statement = db.createStatement()) {
      // No relay here: a slot would only hold back the WAL of the bulk inserts.
      try (PreparedStatement drop = db.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
        drop.setString(1, stack.slot());
        drop.execute();
      }
      statement.execute(
          "INSERT INTO writer.publication_job (id, tenant_id, article_id, revision_id,"
              + " destination, idempotency_key, payload_hash, content, status, remote_id,"
              + " created_at, updated_at)"
              + " SELECT md5('job' || g)::uuid, 't' || (g % 2 + 1), 'a-' || g, 'r-1', 'dest-a',"
              + " encode(sha256(('key' || g)::bytea), 'hex'), '"
              + HASH
              + "', '{}', 'PUBLISHED', 'art-' || g, now() - interval '1 hour',"
              + " now() - interval '1 hour' FROM generate_series(1, "
              + events
              + ") g");
      statement.execute(
          "INSERT INTO consumer.delivery (id, job_id, message_id, tenant_id, article_id,"
              + " revision_id, destination, idempotency_key, payload_hash, content, state,"
              + " attempts, remote_id, created_at, updated_at)"
              + " SELECT md5('delivery' || g)::uuid, md5('job' || g)::uuid,"
              + " md5('event' || g)::uuid, 't' || (g % 2 + 1), 'a-' || g, 'r-1', 'dest-a',"
              + " encode(sha256(('key' || g)::bytea), 'hex'), '"
              + HASH
              + "', '{}', 'PUBLISHED', 1, 'art-' || g, now() - interval '1 hour',"
              + " now() - interval '1 hour' FROM generate_series(1, "
              + events
              + ") g");
      statement.execute(
          "INSERT INTO consumer.inbox (message_id, handler) SELECT md5('event' || g)::uuid, '"
              + HANDLER
              + "' FROM generate_series(1, "
              + events
              + ") g");
      statement.execute("ANALYZE writer.publication_job, consumer.delivery, consumer.inbox");
    }
  }

  private static void fillTopics(
      String bootstrapServers, String publicationTopic, String statusTopic, int events)
      throws Exception {
    Map<String, Object> props =
        Map.of(
            "bootstrap.servers",
            bootstrapServers,
            "key.serializer",
            ByteArraySerializer.class,
            "value.serializer",
            ByteArraySerializer.class,
            "linger.ms",
            "20",
            "batch.size",
            "262144",
            "compression.type",
            "lz4");
    String requestedAt = Instant.now().minus(Duration.ofHours(1)).toString();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int g = 1; g <= events; g++) {
        String job = md5Uuid("job" + g);
        String tenant = "t" + (g % 2 + 1);
        byte[] key = (tenant + "/a-" + g + "/dest-a").getBytes(StandardCharsets.UTF_8);
        String event =
            "{\"jobId\":\""
                + job
                + "\",\"tenant\":\""
                + tenant
                + "\",\"articleId\":\"a-"
                + g
                + "\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"payloadHash\":\""
                + HASH
                + "\",\"content\":{},\"requestedAt\":\""
                + requestedAt
                + "\"}";
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(publicationTopic, key, event.getBytes(StandardCharsets.UTF_8));
        record.headers().add("id", md5Uuid("event" + g).getBytes(StandardCharsets.UTF_8));
        producer.send(record);
        String status =
            "{\"deliveryId\":\""
                + md5Uuid("delivery" + g)
                + "\",\"jobId\":\""
                + job
                + "\",\"tenant\":\""
                + tenant
                + "\",\"state\":\"PUBLISHED\",\"occurredAt\":\""
                + requestedAt
                + "\"}";
        ProducerRecord<byte[], byte[]> statusRecord =
            new ProducerRecord<>(statusTopic, key, status.getBytes(StandardCharsets.UTF_8));
        statusRecord.headers().add("id", md5Uuid("status" + g).getBytes(StandardCharsets.UTF_8));
        producer.send(statusRecord);
      }
      producer.flush();
    }
  }

  /** The consumer group has read everything: no event counts as in flight. */
  private static void commitGroup(String bootstrapServers, String topic, String group) {
    Map<String, Object> props =
        Map.of(
            "bootstrap.servers",
            bootstrapServers,
            "group.id",
            group,
            "enable.auto.commit",
            "false",
            "key.deserializer",
            ByteArrayDeserializer.class,
            "value.deserializer",
            ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      consumer.endOffsets(partitions).forEach((p, o) -> offsets.put(p, new OffsetAndMetadata(o)));
      consumer.commitSync(offsets);
    }
  }

  /** A destination's listing of every article, written as a stream (never held whole). */
  private static HttpServer listing(int events) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    server.createContext(
        "/articles",
        exchange -> {
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 0);
          try (BufferedWriter body =
              new BufferedWriter(
                  new OutputStreamWriter(exchange.getResponseBody(), StandardCharsets.UTF_8),
                  1 << 16)) {
            body.write("{\"articles\":[");
            for (int g = 1; g <= events; g++) {
              if (g > 1) {
                body.write(',');
              }
              body.write("{\"id\":\"art-" + g + "\",\"externalReference\":\"" + key(g) + "\"}");
            }
            body.write("]}");
          }
        });
    server.start();
    return server;
  }

  private static String key(int g) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(("key" + g).getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** PostgreSQL's {@code md5(text)::uuid}. */
  private static String md5Uuid(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
      java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(digest);
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
