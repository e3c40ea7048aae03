package io.herald.consumer.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.runtime.inbox.Decoded;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {

  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private final RecordDecoder decoder = new RecordDecoder();
  private final PublicationKey key = new PublicationKey("t1", "a-84", "r-3", "dest-a");

  @Test
  void shouldDecodeAWellFormedRecord() {
    UUID id = UUID.randomUUID();
    ConsumerRecord<byte[], byte[]> record = record(key.aggregateId(), value(), id.toString(), "t1");
    record.headers().add(EventHeaders.TRACEPARENT, TRACEPARENT.getBytes(StandardCharsets.UTF_8));

    Received valid =
        (Received) assertInstanceOf(Decoded.Valid.class, decoder.decode(record)).value();

    assertEquals(id, valid.messageId());
    assertEquals(key, valid.request().key());
    assertEquals(TRACEPARENT, valid.traceParent());
  }

  @Test
  void shouldDropAnInvalidTraceparentButKeepTheRecord() {
    ConsumerRecord<byte[], byte[]> record =
        record(key.aggregateId(), value(), UUID.randomUUID().toString(), "t1");
    record.headers().add(EventHeaders.TRACEPARENT, "garbage".getBytes(StandardCharsets.UTF_8));

    Received valid =
        (Received) assertInstanceOf(Decoded.Valid.class, decoder.decode(record)).value();
    assertNull(valid.traceParent());
  }

  @Test
  void shouldRejectRecordsThatDoNotDescribeExactlyOneIntent() {
    String id = UUID.randomUUID().toString();
    assertReason("missing_id", record(key.aggregateId(), value(), null, "t1"));
    assertReason("invalid_id", record(key.aggregateId(), value(), "nope", "t1"));
    assertReason(
        "invalid_json",
        record(key.aggregateId(), "{oops".getBytes(StandardCharsets.UTF_8), id, "t1"));
    assertReason(
        "invalid_event",
        record(key.aggregateId(), "{}".getBytes(StandardCharsets.UTF_8), id, "t1"));
    assertReason("tenant_mismatch", record(key.aggregateId(), value(), id, "t2"));
    assertReason("key_mismatch", record("t1/a-84/dest-b", value(), id, "t1"));
    ObjectNode tampered = request().toJson();
    tampered.put("payloadHash", "0".repeat(64));
    assertReason("invalid_event", record(key.aggregateId(), bytes(tampered), id, "t1"));
  }

  @Test
  void shouldRejectOtherEventTypes() {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "topic", 0, 0L, key.aggregateId().getBytes(StandardCharsets.UTF_8), value());
    record
        .headers()
        .add(EventHeaders.ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
    record.headers().add(EventHeaders.EVENT_TYPE, "Other".getBytes(StandardCharsets.UTF_8));

    assertReason("unexpected_event_type", record);
  }

  private void assertReason(String reason, ConsumerRecord<byte[], byte[]> record) {
    Decoded.Invalid<?> invalid = assertInstanceOf(Decoded.Invalid.class, decoder.decode(record));
    assertEquals(reason, invalid.reason(), invalid.detail());
  }

  private PublicationRequested request() {
    ObjectNode content = Json.mapper().createObjectNode().put("title", "Hello");
    return PublicationRequested.of(
        UUID.randomUUID(), key, content, Instant.parse("2026-11-30T10:00:00Z"));
  }

  private byte[] value() {
    return bytes(request().toJson());
  }

  private static byte[] bytes(ObjectNode json) {
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static ConsumerRecord<byte[], byte[]> record(
      String key, byte[] value, String id, String tenant) {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("topic", 0, 0L, key.getBytes(StandardCharsets.UTF_8), value);
    if (id != null) {
      record.headers().add(EventHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
    }
    record
        .headers()
        .add(
            EventHeaders.EVENT_TYPE,
            EventTypes.PUBLICATION_REQUESTED.getBytes(StandardCharsets.UTF_8));
    record.headers().add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
    return record;
  }
}
