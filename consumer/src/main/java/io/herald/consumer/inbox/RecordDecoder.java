package io.herald.consumer.inbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.common.trace.TraceContext;
import io.herald.runtime.inbox.Decoded;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Turns a {@code herald.publication.events} record into a validated request, or into the reason it
 * must go to the dead-letter topic. Validation is total: headers, key and value must agree, so a
 * record that reaches the database describes exactly one intent. An invalid trace context is
 * dropped, not fatal: tracing is best effort, publishing is not.
 */
final class RecordDecoder {

  Decoded<Received> decode(ConsumerRecord<byte[], byte[]> record) {
    String id = header(record, EventHeaders.ID);
    if (id == null) {
      return new Decoded.Invalid<>(
          record, "missing_id", "header '" + EventHeaders.ID + "' is missing");
    }
    UUID messageId;
    try {
      messageId = UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      return new Decoded.Invalid<>(record, "invalid_id", "header 'id' is not a UUID: " + id);
    }
    String eventType = header(record, EventHeaders.EVENT_TYPE);
    if (!EventTypes.PUBLICATION_REQUESTED.equals(eventType)) {
      return new Decoded.Invalid<>(
          record,
          "unexpected_event_type",
          "header 'eventType' is " + eventType + ", expected " + EventTypes.PUBLICATION_REQUESTED);
    }
    if (record.value() == null) {
      return new Decoded.Invalid<>(record, "invalid_json", "record value is empty (tombstone)");
    }
    JsonNode json;
    try {
      json = Json.mapper().readTree(record.value());
    } catch (IOException e) {
      return new Decoded.Invalid<>(
          record, "invalid_json", "value is not valid JSON: " + e.getMessage());
    }
    PublicationRequested request;
    try {
      request = PublicationRequested.fromJson(json);
    } catch (IllegalArgumentException | NullPointerException e) {
      return new Decoded.Invalid<>(record, "invalid_event", e.getMessage());
    }
    String tenant = header(record, EventHeaders.TENANT);
    if (!request.key().tenant().equals(tenant)) {
      return new Decoded.Invalid<>(
          record,
          "tenant_mismatch",
          "header 'tenant' is " + tenant + " but the event is for " + request.key().tenant());
    }
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    if (!request.key().aggregateId().equals(key)) {
      // The key decides the partition and so the order of revisions (guarantee 5).
      return new Decoded.Invalid<>(
          record,
          "key_mismatch",
          "record key is " + key + " but the event's aggregate is " + request.key().aggregateId());
    }
    Optional<TraceContext> trace =
        Optional.ofNullable(header(record, EventHeaders.TRACEPARENT))
            .flatMap(tp -> TraceContext.parse(tp, header(record, EventHeaders.TRACESTATE)));
    return new Decoded.Valid<>(
        record,
        new Received(
            messageId,
            request,
            trace.map(TraceContext::traceparent).orElse(null),
            trace.map(TraceContext::tracestate).orElse(null)));
  }

  /** The last value of a header as a plain string; tolerates a JSON-quoted value. */
  static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : EventHeaders.decode(header.value());
  }
}
