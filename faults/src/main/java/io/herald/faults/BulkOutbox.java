package io.herald.faults;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.CanonicalJson;
import io.herald.common.json.Json;
import io.herald.common.trace.TraceContext;
import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.devstack.StackContext;
import io.herald.writer.job.JobStore;
import io.herald.writer.job.PublicationEvents;
import io.herald.writer.job.PublicationJob;
import io.herald.writer.outbox.OutboxEvent;
import io.herald.writer.outbox.OutboxWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.postgresql.PGConnection;

/**
 * F11: outbox rows written not through the writer's HTTP API but straight into its schema, in the
 * bulk shapes an operator's backfill or a batch job uses, while the relay is SIGKILLed mid-stream
 * and restarted: one multi-row {@code INSERT ... VALUES (...), (...)}, one {@code COPY} (pgjdbc's
 * {@code CopyManager}), and one large transaction (the writer's own statements, JDBC-batched). Each
 * phase writes jobs and their {@code PublicationRequested} events as the writer does (its SQL
 * columns, {@link PublicationEvents#requested} payloads, {@link PublicationKey#idempotencyKey}),
 * one transaction per phase, the outbox rows kept (retention {@code keep}).
 *
 * <p>After the commit the relay is killed once it has published a seeded share (10 to 90 %) of the
 * phase's rows, down up to 2 s, and restarted; then every event id of the phase must reach the
 * publication topic (0 lost); records beyond the first of an id are counted (duplicates at Kafka,
 * allowed). What is checked is Kafka, not the deliveries: the consumer is stopped for the run (it
 * would need minutes for the large transaction at some 130 publications/s). Rows written with
 * {@code COPY} share WAL records only without the outbox's row trigger (dbz#1554, {@code
 * V2__outbox_copy_guard.sql}), which Debezium would then skip on a restart inside them: this class
 * is that guard's test under a kill. Not thread-safe; one run per pipeline.
 */
final class BulkOutbox {

  /** What one phase wrote and what reached Kafka. */
  record Result(String phase, int rows, int missing, int kafkaDuplicates, String kill) {

    String format() {
      return String.format(
          "F11 %s: rows=%d lost=%d kafka_duplicates=%d; %s",
          phase, rows, missing, kafkaDuplicates, kill);
    }
  }

  private static final String JOB_COLUMNS =
      "(id, tenant_id, article_id, revision_id, destination, idempotency_key, payload_hash,"
          + " content, status, trace_parent, trace_state, created_at, updated_at)";
  private static final String JOB_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)";
  private static final String OUTBOX_COLUMNS =
      "(id, aggregate_type, aggregate_id, event_type, tenant_id, payload, trace_parent,"
          + " trace_state, occurred_at)";
  private static final String OUTBOX_VALUES = "(?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)";
  private static final String COPY_JOBS =
      "COPY writer.publication_job " + JOB_COLUMNS + " FROM STDIN WITH (FORMAT csv)";
  private static final String COPY_OUTBOX =
      "COPY writer.outbox " + OUTBOX_COLUMNS + " FROM STDIN WITH (FORMAT csv)";

  private static final int MAX_DOWN_MILLIS = 2000;
  private static final String PUBLISHED = "herald_relay_events_published_total";
  private static final String TENANT = "t1";
  private static final String DESTINATION = "dest-a";

  private final StackContext stack;
  private final PipelineSettings settings;
  private final Pipeline pipeline;
  private final Random random;
  private final String prefix;
  private final PrintStream out;
  private final Duration timeout;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  BulkOutbox(
      StackContext stack,
      PipelineSettings settings,
      Pipeline pipeline,
      long seed,
      Duration timeout,
      PrintStream out) {
    this.stack = stack;
    this.settings = settings;
    this.pipeline = pipeline;
    this.random = new Random(seed);
    this.prefix = "bulk-" + Long.toHexString(seed) + "-";
    this.timeout = timeout;
    this.out = out;
  }

  /** One multi-row INSERT for the jobs and one for their events, in one transaction. */
  Result multiRowInsert(int rows) throws Exception {
    List<PublicationJob> jobs = jobs("insert", rows);
    List<OutboxEvent> events = events(jobs);
    return phase(
        "multi-row INSERT",
        events,
        connection -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  multiRow("writer.publication_job", JOB_COLUMNS, JOB_VALUES, rows))) {
            int parameter = 1;
            for (PublicationJob job : jobs) {
              parameter = bindJob(insert, parameter, job);
            }
            insert.executeUpdate();
          }
          try (PreparedStatement insert =
              connection.prepareStatement(
                  multiRow("writer.outbox", OUTBOX_COLUMNS, OUTBOX_VALUES, rows))) {
            int parameter = 1;
            for (OutboxEvent event : events) {
              parameter = bindEvent(insert, parameter, event);
            }
            insert.executeUpdate();
          }
        });
  }

  /** One COPY for the jobs and one for their events, in one transaction. */
  Result copy(int rows) throws Exception {
    List<PublicationJob> jobs = jobs("copy", rows);
    List<OutboxEvent> events = events(jobs);
    return phase(
        "COPY",
        events,
        connection -> {
          StringBuilder jobCsv = new StringBuilder();
          for (PublicationJob job : jobs) {
            OffsetDateTime at = utc(job.createdAt());
            csvLine(
                jobCsv,
                job.id(),
                job.key().tenant(),
                job.key().articleId(),
                job.key().revisionId(),
                job.key().destination(),
                job.idempotencyKey(),
                job.payloadHash(),
                Json.mapper().writeValueAsString(job.content()),
                job.status(),
                job.traceParent(),
                job.traceState(),
                at,
                at);
          }
          StringBuilder outboxCsv = new StringBuilder();
          for (OutboxEvent event : events) {
            csvLine(
                outboxCsv,
                event.id(),
                event.aggregateType(),
                event.aggregateId(),
                event.eventType(),
                event.tenant(),
                event.payloadJson(),
                event.traceParent(),
                event.traceState(),
                utc(event.occurredAt()));
          }
          var copy = connection.unwrap(PGConnection.class).getCopyAPI();
          copy.copyIn(COPY_JOBS, new StringReader(jobCsv.toString()));
          copy.copyIn(COPY_OUTBOX, new StringReader(outboxCsv.toString()));
        });
  }

  /** One transaction of {@code rows} jobs and events with the writer's own statements, batched. */
  Result bigTransaction(int rows) throws Exception {
    List<PublicationJob> jobs = jobs("bigtx", rows);
    List<OutboxEvent> events = events(jobs);
    return phase("one transaction of " + rows + " rows", events, batched(jobs, events));
  }

  /**
   * Writes {@code rows} jobs and events in one transaction as {@link #bigTransaction} does, and
   * nothing else (no kill, no check): a backlog for the relay to hold when another fault lands.
   */
  void write(String phase, int rows) throws Exception {
    List<PublicationJob> jobs = jobs(phase, rows);
    inTransaction(batched(jobs, events(jobs)));
  }

  private static Write batched(List<PublicationJob> jobs, List<OutboxEvent> events) {
    return connection -> {
      try (PreparedStatement insert = connection.prepareStatement(JobStore.INSERT_JOB)) {
        for (PublicationJob job : jobs) {
          bindJob(insert, 1, job);
          insert.addBatch();
        }
        insert.executeBatch();
      }
      try (PreparedStatement insert = connection.prepareStatement(OutboxWriter.INSERT)) {
        for (OutboxEvent event : events) {
          bindEvent(insert, 1, event);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    };
  }

  private void inTransaction(Write write) throws Exception {
    try (Connection connection =
        DriverManager.getConnection(stack.jdbcUrl(), stack.user(), stack.password())) {
      connection.setAutoCommit(false);
      write.to(connection);
      connection.commit();
    }
  }

  private interface Write {
    void to(Connection connection) throws Exception;
  }

  private Result phase(String name, List<OutboxEvent> events, Write write) throws Exception {
    long published = metric(PUBLISHED);
    long started = System.nanoTime();
    inTransaction(write);
    long wrote = Duration.ofNanos(System.nanoTime() - started).toMillis();
    int share = 10 + random.nextInt(81);
    long target = published + (long) events.size() * share / 100;
    long deadline = System.nanoTime() + timeout.toNanos();
    long seen;
    while ((seen = metricOr(PUBLISHED, published)) < target && System.nanoTime() < deadline) {
      // Polling the relay's counter: the kill lands once it has published the share.
      Thread.sleep(20);
    }
    String kill =
        String.format(
            "written in %d ms; relay killed at %d of %d published (target %d %%): %s",
            wrote,
            seen - published,
            events.size(),
            share,
            ProcessKill.killAndRestart(pipeline, "relay", random, MAX_DOWN_MILLIS));
    Map<String, Integer> copies = awaitEveryEvent(events);
    int missing = 0;
    int duplicates = 0;
    for (OutboxEvent event : events) {
      int count = copies.getOrDefault(event.id().toString(), 0);
      if (count == 0) {
        missing++;
      }
      duplicates += Math.max(0, count - 1);
    }
    Result result = new Result(name, events.size(), missing, duplicates, kill);
    out.println(result.format());
    return result;
  }

  /**
   * Reads the publication topic from its beginning until every event id of {@code events} is there
   * (or the timeout), then on to the end offsets of that moment; returns how often each id came.
   */
  private Map<String, Integer> awaitEveryEvent(List<OutboxEvent> events) {
    Map<String, Integer> copies = new HashMap<>();
    for (OutboxEvent event : events) {
      copies.put(event.id().toString(), 0);
    }
    int seen = 0;
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(settings.publicationTopic(), Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      Map<TopicPartition, Long> end = null;
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          Header id = record.headers().lastHeader("id");
          if (id != null) {
            String key = new String(id.value(), StandardCharsets.UTF_8);
            Integer count = copies.get(key);
            if (count != null) {
              copies.put(key, count + 1);
              if (count == 0) {
                seen++;
              }
            }
          }
        }
        if (seen == events.size() && end == null) {
          end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        }
        if (end != null && reached(consumer, end)) {
          break;
        }
      }
    }
    return copies;
  }

  private static boolean reached(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
      if (consumer.position(partition.getKey()) < partition.getValue()) {
        return false;
      }
    }
    return true;
  }

  private List<PublicationJob> jobs(String phase, int rows) {
    List<PublicationJob> jobs = new ArrayList<>(rows);
    Instant now = Instant.now();
    for (int i = 0; i < rows; i++) {
      PublicationKey key = new PublicationKey(TENANT, prefix + phase + "-" + i, "r1", DESTINATION);
      ObjectNode content = Json.mapper().createObjectNode();
      content.put("title", "Bulk " + phase + " " + i);
      content.put("body", "Written straight into the writer's schema.");
      jobs.add(
          new PublicationJob(
              UUID.randomUUID(),
              key,
              key.idempotencyKey(),
              CanonicalJson.sha256Hex(content),
              content,
              "REQUESTED",
              null,
              TraceContext.newRoot(random).traceparent(),
              null,
              now,
              now));
    }
    return jobs;
  }

  private static List<OutboxEvent> events(List<PublicationJob> jobs) {
    List<OutboxEvent> events = new ArrayList<>(jobs.size());
    for (PublicationJob job : jobs) {
      events.add(PublicationEvents.requested(UUID.randomUUID(), job));
    }
    return events;
  }

  private static String multiRow(String table, String columns, String values, int rows) {
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(' ');
    sql.append(columns).append(" VALUES ");
    for (int i = 0; i < rows; i++) {
      sql.append(i == 0 ? "" : ", ").append(values);
    }
    return sql.toString();
  }

  private static int bindJob(PreparedStatement insert, int first, PublicationJob job)
      throws SQLException, IOException {
    OffsetDateTime at = utc(job.createdAt());
    insert.setObject(first, job.id());
    insert.setString(first + 1, job.key().tenant());
    insert.setString(first + 2, job.key().articleId());
    insert.setString(first + 3, job.key().revisionId());
    insert.setString(first + 4, job.key().destination());
    insert.setString(first + 5, job.idempotencyKey());
    insert.setString(first + 6, job.payloadHash());
    insert.setString(first + 7, Json.mapper().writeValueAsString(job.content()));
    insert.setString(first + 8, job.status());
    insert.setString(first + 9, job.traceParent());
    insert.setString(first + 10, job.traceState());
    insert.setObject(first + 11, at);
    insert.setObject(first + 12, at);
    return first + 13;
  }

  private static int bindEvent(PreparedStatement insert, int first, OutboxEvent event)
      throws SQLException {
    insert.setObject(first, event.id());
    insert.setString(first + 1, event.aggregateType());
    insert.setString(first + 2, event.aggregateId());
    insert.setString(first + 3, event.eventType());
    insert.setString(first + 4, event.tenant());
    insert.setString(first + 5, event.payloadJson());
    insert.setString(first + 6, event.traceParent());
    insert.setString(first + 7, event.traceState());
    insert.setObject(first + 8, utc(event.occurredAt()));
    return first + 9;
  }

  private static OffsetDateTime utc(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  /** One CSV line: null as an empty unquoted field (COPY's NULL in CSV), the rest quoted. */
  private static void csvLine(StringBuilder csv, Object... fields) {
    for (int i = 0; i < fields.length; i++) {
      if (i > 0) {
        csv.append(',');
      }
      if (fields[i] != null) {
        csv.append('"').append(fields[i].toString().replace("\"", "\"\"")).append('"');
      }
    }
    csv.append('\n');
  }

  private long metric(String name) throws IOException, InterruptedException {
    URI uri = pipeline.metricsUris().get("relay");
    HttpRequest get = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
    String text = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        String[] parts = line.trim().split(" ");
        return (long) Double.parseDouble(parts[parts.length - 1]);
      }
    }
    throw new IOException("no " + name + " in " + uri);
  }

  private long metricOr(String name, long otherwise) throws InterruptedException {
    try {
      return metric(name);
    } catch (IOException e) {
      // The relay does not answer for a moment (busy, or restarting): poll again.
      return otherwise;
    }
  }
}
