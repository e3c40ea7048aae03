package io.herald.cli.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.CliDatabase;
import io.herald.cli.kafka.KafkaClients;
import io.herald.cli.kafka.Partitions;
import io.herald.cli.kafka.Records;
import io.herald.cli.kafka.TopicReader;
import io.herald.common.event.EventHeaders;
import io.herald.common.json.Json;
import io.herald.consumer.inbox.Intake;
import io.herald.runtime.db.DatabaseConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The audit itself: stages what Kafka and the destinations hold in the consumer database's session
 * ({@link Staging}), then merges two ordered streams, the writer's jobs and the consumer side's
 * view of each job id, in one pass ({@link Tally}). Both databases are read through cursors and
 * Kafka record by record, so memory does not grow with the number of jobs. Not thread-safe; one
 * audit per instance.
 */
final class Audit {

  /** Where everything lives, from the processes' property files. */
  record Sources(
      DatabaseConfig writerDatabase,
      DatabaseConfig consumerDatabase,
      String bootstrapServers,
      Map<String, String> kafkaClientSettings,
      String publicationTopic,
      String consumerGroup,
      String deadLetterTopic,
      String statusTopic,
      boolean writerViewChecked,
      Duration deliveryRetention) {}

  /** What the operator asked for. */
  record Request(
      Instant since,
      String tenant,
      Duration stuckAfter,
      Map<String, URI> remoteListings,
      Duration kafkaTimeout) {}

  static final String INTAKE_HANDLER = Intake.HANDLER;

  /** Events are produced after their job commits, with the relay's clock: allow for skew. */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(10);

  private static final int FETCH_ROWS = 5_000;
  private static final String CONSUMERS = "the consumer's";
  private static final String WRITERS = "the writer's";
  private static final String CONSUMER_SIDE = resource("consumer-side.sql");
  private static final String WRITER_JOBS = resource("writer-jobs.sql");

  private final Sources sources;
  private final Request request;
  private final Clock clock;
  private final HttpClient http;
  private long eventRecords;
  private long unreadableEvents;
  private long deadLetters;
  private long statusEvents;
  private long remoteArticles;
  private long jobs;

  Audit(Sources sources, Request request, Clock clock, HttpClient http) {
    this.sources = Objects.requireNonNull(sources, "sources");
    this.request = Objects.requireNonNull(request, "request");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.http = Objects.requireNonNull(http, "http");
  }

  AuditReport run() throws Exception {
    Instant now = clock.instant();
    Tally tally =
        new Tally(
            now, request.stuckAfter(), sources.deliveryRetention(), sources.writerViewChecked());
    try (Connection consumerDb =
        CliDatabase.open(sources.consumerDatabase(), "cannot audit", CONSUMERS, 0)) {
      try {
        consumerDb.setAutoCommit(false);
        stage(consumerDb);
      } catch (SQLException e) {
        throw consumerFailure(e);
      }
      try (Connection writerDb =
              CliDatabase.open(sources.writerDatabase(), "cannot audit", WRITERS, 0);
          PreparedStatement consumerSide = consumerSide(consumerDb);
          PreparedStatement writerJobs = writerJobs(writerDb);
          ResultSet consumed = query(consumerSide, true);
          ResultSet jobRows = query(writerJobs, false)) {
        merge(jobRows, consumed, tally);
      }
    }
    AuditReport.Scope scope =
        new AuditReport.Scope(
            request.since() == null ? null : request.since().toString(),
            request.tenant(),
            request.stuckAfter().toSeconds());
    AuditReport.Sources read =
        new AuditReport.Sources(
            jobs,
            eventRecords,
            unreadableEvents,
            deadLetters,
            statusEvents,
            remoteArticles,
            new ArrayList<>(new LinkedHashSet<>(request.remoteListings().values()))
                .stream().map(URI::toString).toList());
    return AuditReport.of(tally, scope, read);
  }

  private void stage(Connection consumerDb) throws Exception {
    // Temporary tables vanish with the session; the audit never commits anything.
    Staging staging = new Staging(consumerDb);
    KafkaClients kafka =
        KafkaClients.of(
            sources.bootstrapServers(), sources.kafkaClientSettings(), request.kafkaTimeout());
    TopicReader reader = new TopicReader(kafka, "herald-cli-audit", request.kafkaTimeout());
    Instant from = request.since() == null ? null : request.since().minus(CLOCK_SKEW);
    eventRecords =
        records(
            reader.read(
                sources.publicationTopic(),
                Partitions.all(),
                from,
                record -> event(record, staging)));
    for (Map.Entry<Integer, Long> committed :
        kafka
            .committedOffsets(
                "herald-cli-audit-admin", sources.consumerGroup(), sources.publicationTopic())
            .entrySet()) {
      staging.add(Staging.Table.COMMITTED, committed.getKey(), committed.getValue());
    }
    deadLetters =
        records(
            reader.read(
                sources.deadLetterTopic(),
                Partitions.all(),
                from,
                record -> deadLetter(record, staging)));
    statusEvents =
        records(
            reader.read(
                sources.statusTopic(), Partitions.all(), from, record -> status(record, staging)));
    RemoteListing listing = new RemoteListing(http, request.kafkaTimeout());
    for (URI url : new LinkedHashSet<>(request.remoteListings().values())) {
      remoteArticles += listing.read(url, staging);
    }
    staging.finish();
  }

  /** How many records a read handed over; a topic that does not exist reads as empty. */
  private static long records(Optional<TopicReader.Extent> read) {
    return read.map(TopicReader.Extent::records).orElse(0L);
  }

  private void event(ConsumerRecord<byte[], byte[]> record, Staging staging) throws SQLException {
    UUID id = Records.uuid(Records.header(record, EventHeaders.ID));
    JsonNode value = json(record.value());
    UUID jobId = value == null ? null : Records.uuid(value.path("jobId").asText(null));
    String tenant = value == null ? null : value.path("tenant").asText(null);
    String hash = value == null ? null : value.path("payloadHash").asText(null);
    Instant requestedAt = value == null ? null : instant(value.path("requestedAt").asText(null));
    if (id == null || jobId == null || tenant == null || hash == null || requestedAt == null) {
      unreadableEvents++;
      return;
    }
    if (inScope(tenant, requestedAt)) {
      staging.add(
          Staging.Table.EVENT, jobId, id, tenant, hash, record.partition(), record.offset());
    }
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> record, Staging staging)
      throws SQLException {
    UUID id = Records.uuid(Records.header(record, EventHeaders.ID));
    if (id != null) {
      staging.add(Staging.Table.DLQ, id);
    }
  }

  private void status(ConsumerRecord<byte[], byte[]> record, Staging staging) throws SQLException {
    UUID id = Records.uuid(Records.header(record, EventHeaders.ID));
    JsonNode value = json(record.value());
    if (id == null || value == null) {
      return;
    }
    UUID jobId = Records.uuid(value.path("jobId").asText(null));
    String state = value.path("state").asText(null);
    String tenant = value.path("tenant").asText(null);
    Instant occurredAt = instant(value.path("occurredAt").asText(null));
    if (jobId == null || state == null || tenant == null || occurredAt == null) {
      return;
    }
    if (request.tenant() == null || request.tenant().equals(tenant)) {
      staging.add(Staging.Table.STATUS, jobId, id, state, occurredAt);
    }
  }

  private boolean inScope(String tenant, Instant requestedAt) {
    return (request.tenant() == null || request.tenant().equals(tenant))
        && (request.since() == null || !requestedAt.isBefore(request.since()));
  }

  private PreparedStatement consumerSide(Connection connection) {
    try {
      PreparedStatement statement = connection.prepareStatement(CONSUMER_SIDE);
      statement.setFetchSize(FETCH_ROWS);
      int i = scope(statement, 1);
      statement.setArray(
          i++,
          connection.createArrayOf(
              "text", request.remoteListings().keySet().toArray(String[]::new)));
      statement.setString(i, INTAKE_HANDLER);
      return statement;
    } catch (SQLException e) {
      throw consumerFailure(e);
    }
  }

  private PreparedStatement writerJobs(Connection connection) {
    try {
      // A cursor (fetch size) needs a transaction; the audit only reads, so it never commits.
      connection.setAutoCommit(false);
      PreparedStatement statement = connection.prepareStatement(WRITER_JOBS);
      statement.setFetchSize(FETCH_ROWS);
      scope(statement, 1);
      return statement;
    } catch (SQLException e) {
      throw writerFailure(e);
    }
  }

  private ResultSet query(PreparedStatement statement, boolean consumerSide) {
    try {
      return statement.executeQuery();
    } catch (SQLException e) {
      throw consumerSide ? consumerFailure(e) : writerFailure(e);
    }
  }

  private io.herald.cli.CliFailure consumerFailure(SQLException e) {
    return CliDatabase.failure(e, "cannot audit", sources.consumerDatabase(), CONSUMERS);
  }

  private io.herald.cli.CliFailure writerFailure(SQLException e) {
    return CliDatabase.failure(e, "cannot audit", sources.writerDatabase(), WRITERS);
  }

  /** Binds since (twice) and tenant (twice) from {@code first}; returns the next index. */
  private int scope(PreparedStatement statement, int first) throws SQLException {
    int i = first;
    for (int n = 0; n < 2; n++) {
      if (request.since() == null) {
        statement.setNull(i++, Types.TIMESTAMP_WITH_TIMEZONE);
      } else {
        statement.setTimestamp(i++, Timestamp.from(request.since()));
      }
    }
    for (int n = 0; n < 2; n++) {
      statement.setString(i++, request.tenant());
    }
    return i;
  }

  /** Walks both id-ordered streams together; an id on one side only is passed with a null. */
  private void merge(ResultSet jobRows, ResultSet consumed, Tally tally) {
    Rows.Job job = nextJob(jobRows, null);
    Rows.Consumed side = nextConsumed(consumed, null);
    while (job != null || side != null) {
      int order =
          job == null ? 1 : side == null ? -1 : Rows.DATABASE_ORDER.compare(job.id(), side.jobId());
      if (order < 0) {
        tally.add(job, null);
        job = nextJob(jobRows, job);
      } else if (order > 0) {
        tally.add(null, side);
        side = nextConsumed(consumed, side);
      } else {
        tally.add(job, side);
        job = nextJob(jobRows, job);
        side = nextConsumed(consumed, side);
      }
    }
  }

  private Rows.Job nextJob(ResultSet rows, Rows.Job previous) {
    try {
      return readJob(rows, previous);
    } catch (SQLException e) {
      throw writerFailure(e);
    }
  }

  private Rows.Consumed nextConsumed(ResultSet rows, Rows.Consumed previous) {
    try {
      return readConsumed(rows, previous);
    } catch (SQLException e) {
      throw consumerFailure(e);
    }
  }

  private Rows.Job readJob(ResultSet rows, Rows.Job previous) throws SQLException {
    if (!rows.next()) {
      return null;
    }
    jobs++;
    Rows.Job job =
        new Rows.Job(
            rows.getObject(1, UUID.class),
            rows.getString(2),
            rows.getString(3),
            rows.getString(4),
            rows.getString(5),
            rows.getString(6),
            rows.getString(7),
            rows.getObject(8, OffsetDateTime.class).toInstant());
    ordered(previous == null ? null : previous.id(), job.id());
    return job;
  }

  private static Rows.Consumed readConsumed(ResultSet rows, Rows.Consumed previous)
      throws SQLException {
    if (!rows.next()) {
      return null;
    }
    Rows.Consumed consumed =
        new Rows.Consumed(
            rows.getObject(1, UUID.class),
            nullableLong(rows, 2),
            nullableLong(rows, 3),
            nullableLong(rows, 4),
            rows.getString(5),
            rows.getBoolean(6),
            rows.getBoolean(7),
            (Integer) rows.getObject(8),
            nullableLong(rows, 9),
            rows.getObject(10, UUID.class),
            rows.getString(11),
            rows.getString(12),
            instant(rows.getObject(13, OffsetDateTime.class)),
            instant(rows.getObject(14, OffsetDateTime.class)),
            rows.getString(15),
            rows.getString(16),
            rows.getString(17),
            rows.getString(18),
            rows.getBoolean(19),
            rows.getString(20),
            rows.getLong(21),
            rows.getBoolean(22));
    ordered(previous == null ? null : previous.jobId(), consumed.jobId());
    return consumed;
  }

  /** The merge is only right if both sides come in the same strict order: checked, not assumed. */
  private static void ordered(UUID previous, UUID next) {
    if (previous != null && Rows.DATABASE_ORDER.compare(previous, next) >= 0) {
      throw new IllegalStateException(
          "audit rows out of order: " + next + " after " + previous + "; the merge cannot go on");
    }
  }

  private static Long nullableLong(ResultSet rows, int column) throws SQLException {
    long value = rows.getLong(column);
    return rows.wasNull() ? null : value;
  }

  private static Instant instant(OffsetDateTime value) {
    return value == null ? null : value.toInstant();
  }

  private static JsonNode json(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      JsonNode node = Json.mapper().readTree(value);
      // The relay's EventRouter may carry the payload as a JSON string holding the object.
      if (node != null && node.isTextual()) {
        node = Json.mapper().readTree(node.textValue());
      }
      return node != null && node.isObject() ? node : null;
    } catch (IOException e) {
      // Not fatal, counted: an unreadable record is what the consumer dead-letters.
      return null;
    }
  }

  private static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private static String resource(String name) {
    try (InputStream in = Audit.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
