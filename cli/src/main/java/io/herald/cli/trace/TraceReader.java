package io.herald.cli.trace;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.kafka.Partitions;
import io.herald.cli.kafka.Records;
import io.herald.cli.kafka.TopicReader;
import io.herald.cli.trace.Trace.AttemptRow;
import io.herald.cli.trace.Trace.Delivery;
import io.herald.cli.trace.Trace.InboxRow;
import io.herald.cli.trace.Trace.Job;
import io.herald.cli.trace.Trace.OperatorActionRow;
import io.herald.cli.trace.Trace.PublicationEvent;
import io.herald.cli.trace.Trace.Scan;
import io.herald.cli.trace.Trace.StatusEvent;
import io.herald.common.event.EventHeaders;
import io.herald.common.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Gathers one job's chain of custody: the job, then its {@code PublicationRequested} record (found
 * by the job id in the payload, in the key's partition only), the inbox row and delivery, the
 * attempts and operator actions, the status events (same key, same bound) and the writer's view.
 * Not thread-safe: one per command run.
 */
final class TraceReader {

  /**
   * How far before the job's creation the Kafka scans start: the record timestamps come from the
   * relay's and the consumer's clocks, the job's time from the database's; NTP keeps them closer.
   */
  static final Duration CLOCK_MARGIN = Duration.ofMinutes(1);

  private final TraceDatabase database;
  private final TopicReader publications;
  private final String publicationTopic;
  private final TopicReader statuses;
  private final String statusTopic;
  private final List<String> notes = new ArrayList<>();

  /**
   * @param statuses null when no status topic is configured (the writer's status view is off)
   */
  TraceReader(
      TraceDatabase database,
      TopicReader publications,
      String publicationTopic,
      TopicReader statuses,
      String statusTopic) {
    this.database = database;
    this.publications = publications;
    this.publicationTopic = publicationTopic;
    this.statuses = statuses;
    this.statusTopic = statusTopic;
  }

  /** The job's trace, or empty when the writer has no such job. */
  Optional<Trace> read(Target target) {
    Optional<Job> found = database.job(target);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Job job = found.get();
    Instant since = job.createdAt().minus(CLOCK_MARGIN);

    Map<UUID, List<ConsumerRecord<byte[], byte[]>>> requested = new LinkedHashMap<>();
    Optional<Scan> publicationScan =
        scan(
            publications,
            publicationTopic,
            job.recordKey(),
            since,
            record -> {
              JsonNode payload = payload(record);
              if (payload != null && job.id().toString().equals(payload.path("jobId").asText())) {
                requested.computeIfAbsent(eventId(record), id -> new ArrayList<>()).add(record);
              }
            });
    PublicationEvent event = publicationEvent(requested);

    Delivery delivery = database.delivery(job).orElse(null);
    UUID messageId =
        delivery != null ? delivery.messageId() : event != null ? event.eventId() : null;
    InboxRow inbox = messageId == null ? null : database.inbox(messageId).orElse(null);
    List<AttemptRow> attempts = delivery == null ? List.of() : database.attempts(delivery.id());
    List<OperatorActionRow> actions =
        delivery == null ? List.of() : database.operatorActions(delivery.id());

    List<StatusEvent> statusEvents = new ArrayList<>();
    Scan statusScan = null;
    if (statuses != null) {
      Map<UUID, StatusEvent> byId = new LinkedHashMap<>();
      statusScan =
          scan(
                  statuses,
                  statusTopic,
                  job.recordKey(),
                  since,
                  record -> {
                    JsonNode payload = payload(record);
                    if (payload != null
                        && job.id().toString().equals(payload.path("jobId").asText())) {
                      UUID id = eventId(record);
                      StatusEvent seen = byId.get(id);
                      byId.put(
                          id,
                          seen == null
                              ? statusEvent(id, record, payload)
                              : copy(seen, seen.copies() + 1));
                    }
                  })
              .orElse(null);
      if (statusScan == null) {
        notes.add("topic " + statusTopic + " does not exist: no status event was looked for");
      }
      statusEvents.addAll(byId.values());
    }

    List<String> gaps =
        new ArrayList<>(
            TraceText.gaps(
                job,
                event,
                publicationScan.orElse(null),
                publicationTopic,
                inbox,
                delivery,
                statusEvents,
                statusScan));
    if (requested.size() > 1) {
      gaps.add(
          requested.size()
              + " different event ids carry job "
              + job.id()
              + ": "
              + requested.keySet()
              + " (one outbox row per job is expected)");
    }
    if (delivery != null && event != null && !delivery.messageId().equals(event.eventId())) {
      gaps.add(
          "the delivery was created from event "
              + delivery.messageId()
              + ", not from "
              + event.eventId());
    }
    gaps.addAll(notes);
    return Optional.of(
        new Trace(
            job,
            event,
            publicationScan.orElse(null),
            inbox,
            delivery,
            attempts,
            actions,
            statusEvents,
            statusScan,
            TraceText.chain(
                job,
                event,
                publicationScan.orElse(null),
                inbox,
                delivery,
                attempts,
                actions,
                statusEvents,
                statusScan),
            gaps));
  }

  /**
   * Hands every record of {@code topic} whose key is {@code key}, at or after {@code since}, to
   * {@code visitor} in offset order: only the key's partition is read.
   *
   * @return where it read, or empty when the topic does not exist
   */
  private static Optional<Scan> scan(
      TopicReader reader,
      String topic,
      String key,
      Instant since,
      Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    return reader
        .read(
            topic,
            Partitions.ofKey(key),
            since,
            record -> {
              if (Arrays.equals(keyBytes, record.key())) {
                visitor.accept(record);
              }
            })
        .map(
            read -> {
              int partition = Partitions.forKey(key, read.partitionCount());
              return new Scan(
                  topic,
                  partition,
                  read.partitionCount(),
                  read.from().get(partition),
                  read.to().get(partition));
            });
  }

  private static PublicationEvent publicationEvent(
      Map<UUID, List<ConsumerRecord<byte[], byte[]>>> requested) {
    if (requested.isEmpty()) {
      return null;
    }
    Map.Entry<UUID, List<ConsumerRecord<byte[], byte[]>>> first =
        requested.entrySet().iterator().next();
    List<ConsumerRecord<byte[], byte[]>> copies = first.getValue();
    ConsumerRecord<byte[], byte[]> record = copies.get(0);
    return new PublicationEvent(
        first.getKey(),
        record.partition(),
        record.offset(),
        Instant.ofEpochMilli(record.timestamp()),
        copies.size(),
        copies.stream().map(ConsumerRecord::offset).toList());
  }

  private static StatusEvent statusEvent(
      UUID id, ConsumerRecord<byte[], byte[]> record, JsonNode payload) {
    return new StatusEvent(
        id,
        record.partition(),
        record.offset(),
        Instant.ofEpochMilli(record.timestamp()),
        Records.header(record, EventHeaders.EVENT_TYPE),
        text(payload, "state"),
        text(payload, "remoteId"),
        payload.hasNonNull("attempts") ? payload.get("attempts").asInt() : null,
        text(payload, "reason"),
        time(payload, "occurredAt"),
        1);
  }

  private static StatusEvent copy(StatusEvent e, int copies) {
    return new StatusEvent(
        e.eventId(),
        e.partition(),
        e.offset(),
        e.timestamp(),
        e.eventType(),
        e.state(),
        e.remoteId(),
        e.attempts(),
        e.reason(),
        e.occurredAt(),
        copies);
  }

  /** The record's JSON value, or null (noted) when it has none or it is not JSON. */
  private JsonNode payload(ConsumerRecord<byte[], byte[]> record) {
    if (record.value() == null) {
      return null;
    }
    try {
      return Json.mapper().readTree(record.value());
    } catch (IOException e) {
      notes.add(
          "record at "
              + record.topic()
              + " partition "
              + record.partition()
              + " offset "
              + record.offset()
              + " has this job's key but no JSON value: "
              + e.getMessage());
      return null;
    }
  }

  /** The {@code id} header (the outbox row's id); a nil UUID (noted) when it is missing. */
  private UUID eventId(ConsumerRecord<byte[], byte[]> record) {
    String id = Records.header(record, EventHeaders.ID);
    UUID parsed = Records.uuid(id);
    if (parsed != null) {
      return parsed;
    }
    notes.add(
        "record at "
            + record.topic()
            + " partition "
            + record.partition()
            + " offset "
            + record.offset()
            + " has no valid id header ("
            + id
            + ")");
    return new UUID(0, 0);
  }

  private static String text(JsonNode payload, String field) {
    JsonNode value = payload.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static Instant time(JsonNode payload, String field) {
    String value = text(payload, field);
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      // The Kafka timestamp orders the step instead; the payload's text stays in the JSON.
      return null;
    }
  }
}
