package io.herald.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads what one round left behind: the writer's jobs and the consumer's deliveries of the round's
 * articles (by article-id prefix), and every record of the publication topic. Each call opens and
 * closes its own connection or Kafka consumer.
 */
final class Observations {

  private static final String JOBS =
      "SELECT id, tenant_id, article_id, revision_id, destination FROM writer.publication_job"
          + " WHERE article_id LIKE ?";

  private static final String ALL_JOB_IDS = "SELECT id FROM writer.publication_job";

  private static final String DELIVERIES =
      "SELECT job_id, tenant_id, article_id, revision_id, destination, idempotency_key, seq, state"
          + " FROM consumer.delivery WHERE article_id LIKE ?";

  /**
   * The round's jobs, how many have their delivery settled (final or NEEDS_RECONCILIATION), and how
   * many wait behind an earlier revision that needs an operator (guarantee 5 holds them back).
   */
  private static final String PROGRESS =
      "SELECT (SELECT count(*) FROM writer.publication_job WHERE article_id LIKE ?),"
          + " count(*) FILTER (WHERE state IN"
          + "   ('PUBLISHED', 'FAILED', 'ABANDONED', 'CONFLICT', 'NEEDS_RECONCILIATION')),"
          + " count(*) FILTER (WHERE state IN ('PENDING', 'RETRY_WAIT') AND EXISTS ("
          + "   SELECT 1 FROM consumer.delivery e WHERE e.tenant_id = d.tenant_id"
          + "   AND e.article_id = d.article_id AND e.destination = d.destination"
          + "   AND e.seq < d.seq AND e.state = 'NEEDS_RECONCILIATION')),"
          + " count(*) FILTER (WHERE state = 'PUBLISHED'),"
          + " count(*) FILTER (WHERE state = 'UNCERTAIN'),"
          + " count(*) FILTER (WHERE state = 'NEEDS_RECONCILIATION')"
          + " FROM consumer.delivery d WHERE d.article_id LIKE ?";

  /**
   * The longest gap, in milliseconds, between consecutive arrivals of the round's events at the
   * consumer, counted from the start of the load: each delivery is created in the transaction that
   * takes its event from Kafka into the inbox, so {@code created_at} (the transaction's start) is
   * when the event arrived.
   */
  private static final String LONGEST_ARRIVAL_GAP =
      "SELECT coalesce(max(gap), 0) FROM (SELECT extract(epoch FROM"
          + " t - lag(t) OVER (ORDER BY t)) * 1000 AS gap FROM ("
          + "   SELECT created_at AS t FROM consumer.delivery WHERE article_id LIKE ?"
          + "   UNION ALL SELECT ?::timestamptz) arrivals) gaps";

  /** The round's counts at one moment. */
  record Progress(
      int jobs, int settled, int blocked, int published, int uncertain, int needsReconciliation) {

    /** Every job has a delivery, and each is final, waits for an operator or behind one. */
    boolean quiescent(int intents) {
      return jobs == intents && settled + blocked == jobs;
    }

    /** Every job's delivery published. */
    boolean allPublished(int intents) {
      return jobs == intents && published == jobs;
    }
  }

  private final DataSource database;
  private final String bootstrapServers;
  private final String publicationTopic;

  Observations(DataSource database, String bootstrapServers, String publicationTopic) {
    this.database = database;
    this.bootstrapServers = bootstrapServers;
    this.publicationTopic = publicationTopic;
  }

  /**
   * The longest stall of the round so far: the longest time without an event of the round arriving
   * at the consumer, from {@code loadStart} to the last arrival.
   */
  Duration longestArrivalGap(String articlePrefix, Instant loadStart) throws SQLException {
    try (Connection connection = database.getConnection();
        PreparedStatement select = connection.prepareStatement(LONGEST_ARRIVAL_GAP)) {
      select.setString(1, articlePrefix + "%");
      select.setObject(2, OffsetDateTime.ofInstant(loadStart, ZoneOffset.UTC));
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return Duration.ofMillis(Math.round(row.getDouble(1)));
      }
    }
  }

  Progress progress(String articlePrefix) throws SQLException {
    try (Connection connection = database.getConnection();
        PreparedStatement select = connection.prepareStatement(PROGRESS)) {
      select.setString(1, articlePrefix + "%");
      select.setString(2, articlePrefix + "%");
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return new Progress(
            row.getInt(1),
            row.getInt(2),
            row.getInt(3),
            row.getInt(4),
            row.getInt(5),
            row.getInt(6));
      }
    }
  }

  List<Checker.Job> jobs(String articlePrefix) throws SQLException {
    List<Checker.Job> jobs = new ArrayList<>();
    try (Connection connection = database.getConnection();
        PreparedStatement select = connection.prepareStatement(JOBS)) {
      select.setString(1, articlePrefix + "%");
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          jobs.add(new Checker.Job(row.getObject(1, UUID.class), key(row, 2)));
        }
      }
    }
    return jobs;
  }

  List<Checker.Delivery> deliveries(String articlePrefix) throws SQLException {
    List<Checker.Delivery> deliveries = new ArrayList<>();
    try (Connection connection = database.getConnection();
        PreparedStatement select = connection.prepareStatement(DELIVERIES)) {
      select.setString(1, articlePrefix + "%");
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          deliveries.add(
              new Checker.Delivery(
                  row.getObject(1, UUID.class),
                  key(row, 2),
                  row.getString(5),
                  row.getString(6),
                  row.getLong(7),
                  row.getString(8)));
        }
      }
    }
    return deliveries;
  }

  private static String key(ResultSet row, int first) throws SQLException {
    return row.getString(first)
        + "/"
        + row.getString(first + 1)
        + "/"
        + row.getString(first + 2)
        + "/"
        + row.getString(first + 3);
  }

  /**
   * Every committed record of the publication topic whose payload names one of {@code jobs}, from
   * the beginning to the end offsets at the call, in partition order. Memory: one small record per
   * event of the round.
   */
  List<Checker.Event> events(Set<UUID> jobs) throws IOException {
    List<Checker.Event> events = new ArrayList<>();
    readEvents(
        (id, job) -> {
          if (jobs.contains(job)) {
            events.add(new Checker.Event(id, job));
          }
        });
    return events;
  }

  /**
   * Events in the publication topic (of any round) whose job the database does not hold: a
   * publication for an intent the writer's database lost, which only a failover to a standby that
   * lacked the commit can leave (F14). The topic is read before the jobs, and an event only reaches
   * it after its job committed, so a job committed meanwhile is never counted.
   */
  List<Checker.Event> phantomEvents() throws IOException, SQLException {
    List<Checker.Event> events = new ArrayList<>();
    readEvents((id, job) -> events.add(new Checker.Event(id, job)));
    Set<UUID> jobs = new HashSet<>();
    try (Connection connection = database.getConnection();
        PreparedStatement select = connection.prepareStatement(ALL_JOB_IDS);
        ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        jobs.add(rows.getObject(1, UUID.class));
      }
    }
    return events.stream().filter(e -> !jobs.contains(e.jobId())).toList();
  }

  /** What {@link #readEvents} hands each event: its {@code id} header and its job. */
  private interface EventVisitor {
    void visit(String id, UUID job);
  }

  /** Reads the publication topic from its beginning to the end offsets it has now. */
  private void readEvents(EventVisitor visitor) throws IOException {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(publicationTopic, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end =
          new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(30)));
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "could not read " + publicationTopic + " to its end offsets " + end + " in 1 min");
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          UUID job = jobOf(record);
          if (job != null) {
            Header id = record.headers().lastHeader("id");
            visitor.visit(id == null ? "" : new String(id.value(), StandardCharsets.UTF_8), job);
          }
        }
      }
    }
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

  /** The job the event's payload names; null for a record without one (a tombstone). */
  private static UUID jobOf(ConsumerRecord<byte[], byte[]> record) throws IOException {
    if (record.value() == null) {
      return null;
    }
    JsonNode value = Json.mapper().readTree(record.value());
    // The router may have wrapped the payload column in a JSON string.
    if (value.isTextual()) {
      value = Json.mapper().readTree(value.asText());
    }
    JsonNode job = value.findValue("jobId");
    return job == null ? null : UUID.fromString(job.asText());
  }
}
