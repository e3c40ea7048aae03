package io.herald.writer.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.runtime.inbox.Decoded;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Turns a {@code herald.delivery.events} record into a {@link StatusEvent}, or into the reason it
 * is skipped. Validation is total (headers, key and value must agree) and covers everything the
 * database would refuse, so an accepted event never fails its transaction for a reason that a retry
 * cannot cure: such a record would block its partition. Thread-safe.
 */
final class StatusDecoder {

  /** The states a job can take from an event: the delivery states and {@code CONFLICT}. */
  static final Set<String> STATES =
      Set.of(
          "PENDING",
          "DISPATCHING",
          "RETRY_WAIT",
          "UNCERTAIN",
          "NEEDS_RECONCILIATION",
          "UNKNOWN_DESTINATION",
          "PUBLISHED",
          "FAILED",
          "ABANDONED",
          "CONFLICT");

  static final Set<String> EVENT_TYPES =
      Set.of(
          EventTypes.PUBLICATION_PUBLISHED,
          EventTypes.PUBLICATION_RETRYING,
          EventTypes.PUBLICATION_UNCERTAIN,
          EventTypes.PUBLICATION_NEEDS_RECONCILIATION,
          EventTypes.PUBLICATION_UNKNOWN_DESTINATION,
          EventTypes.PUBLICATION_FAILED,
          EventTypes.PUBLICATION_CONFLICT);

  static final String CONFLICT = "CONFLICT";

  /** Longest remote id stored; a destination's article id is far shorter. */
  static final int MAX_REMOTE_ID_LENGTH = 2048;

  private static final Instant EARLIEST = Instant.EPOCH;
  private static final Instant LATEST = Instant.parse("+10000-01-01T00:00:00Z");

  private final ObjectMapper mapper;

  StatusDecoder(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  Decoded<StatusEvent> decode(ConsumerRecord<byte[], byte[]> record) {
    String id = header(record, EventHeaders.ID);
    if (id == null) {
      return invalid(record, "missing_id", "header '" + EventHeaders.ID + "' is missing");
    }
    UUID messageId;
    try {
      messageId = uuid("header 'id'", id);
    } catch (IllegalArgumentException e) {
      return invalid(record, "invalid_id", "header 'id' is not a UUID: " + id);
    }
    String eventType = header(record, EventHeaders.EVENT_TYPE);
    if (!EVENT_TYPES.contains(eventType)) {
      return invalid(
          record,
          "unexpected_event_type",
          "header '" + EventHeaders.EVENT_TYPE + "' is " + eventType + ", not a status event");
    }
    if (record.value() == null) {
      return invalid(record, "invalid_json", "record value is empty (tombstone)");
    }
    JsonNode json;
    try {
      json = mapper.readTree(record.value());
    } catch (IOException e) {
      return invalid(record, "invalid_json", "value is not valid JSON: " + e.getMessage());
    }
    if (json == null || !json.isObject()) {
      return invalid(record, "invalid_json", "value is not a JSON object");
    }
    StatusEvent event;
    PublicationKey key;
    try {
      key =
          new PublicationKey(
              text(json, "tenant"),
              text(json, "articleId"),
              text(json, "revisionId"),
              text(json, "destination"));
      uuid("deliveryId", text(json, "deliveryId"));
      String state = text(json, "state");
      if (!STATES.contains(state)) {
        throw new IllegalArgumentException(
            "state " + state + " is not one of " + new TreeSet<>(STATES));
      }
      event =
          new StatusEvent(
              messageId,
              uuid("jobId", text(json, "jobId")),
              key.tenant(),
              state,
              remoteId(json),
              occurredAt(json));
    } catch (IllegalArgumentException | NullPointerException e) {
      return invalid(record, "invalid_event", e.getMessage());
    }
    String tenant = header(record, EventHeaders.TENANT);
    if (!key.tenant().equals(tenant)) {
      return invalid(
          record,
          "tenant_mismatch",
          "header 'tenant' is " + tenant + " but the event is for " + key.tenant());
    }
    String recordKey =
        record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    if (!key.aggregateId().equals(recordKey)) {
      return invalid(
          record,
          "key_mismatch",
          "record key is " + recordKey + " but the event's aggregate is " + key.aggregateId());
    }
    return new Decoded.Valid<>(record, event);
  }

  /** The last value of a header as a plain string; tolerates a JSON-quoted value. */
  static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : EventHeaders.decode(header.value());
  }

  private static Decoded<StatusEvent> invalid(
      ConsumerRecord<byte[], byte[]> record, String reason, String d) {
    return new Decoded.Invalid<>(record, reason, d);
  }

  /** A required string field. */
  private static String text(JsonNode json, String field) {
    JsonNode node = json.get(field);
    if (node == null || node.isNull()) {
      throw new IllegalArgumentException(field + " is required");
    }
    if (!node.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string, was " + node.getNodeType());
    }
    return node.textValue();
  }

  /** Strict: {@link UUID#fromString} accepts short forms such as {@code 1-2-3-4-5}. */
  private static UUID uuid(String field, String text) {
    try {
      if (text.length() == 36) {
        return UUID.fromString(text);
      }
    } catch (IllegalArgumentException e) {
      // reported below, naming the field
    }
    throw new IllegalArgumentException(field + " is not a UUID: " + text);
  }

  private static String remoteId(JsonNode json) {
    JsonNode node = json.get("remoteId");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual() || node.textValue().isBlank()) {
      throw new IllegalArgumentException("remoteId must be a non-blank string or null");
    }
    String value = node.textValue();
    if (value.length() > MAX_REMOTE_ID_LENGTH) {
      throw new IllegalArgumentException(
          "remoteId is longer than " + MAX_REMOTE_ID_LENGTH + " characters: " + value.length());
    }
    // PostgreSQL text cannot hold NUL; other control characters have no business in an id.
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("remoteId must not contain control characters");
    }
    return value;
  }

  private static Instant occurredAt(JsonNode json) {
    String text = text(json, "occurredAt");
    Instant instant;
    try {
      instant = Instant.parse(text).truncatedTo(ChronoUnit.MICROS);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("occurredAt is not an ISO-8601 instant: " + text);
    }
    // Within what timestamptz holds, so the database never refuses it.
    if (instant.isBefore(EARLIEST) || !instant.isBefore(LATEST)) {
      throw new IllegalArgumentException("occurredAt is out of range: " + text);
    }
    return instant;
  }
}
