package io.herald.writer.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.json.Json;
import io.herald.runtime.inbox.Decoded;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class StatusDecoderTest {

  private static final UUID ID = UUID.fromString("01937a6e-0000-7000-8000-000000000001");
  private static final UUID JOB = UUID.fromString("01937a6e-0000-7000-8000-000000000002");

  private final StatusDecoder decoder = new StatusDecoder(Json.mapper());

  private static ObjectNode value() {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("deliveryId", "01937a6e-0000-7000-8000-000000000003");
    node.put("jobId", JOB.toString());
    node.put("tenant", "t1");
    node.put("articleId", "a-84");
    node.put("revisionId", "r-3");
    node.put("destination", "dest-a");
    node.put("state", "PUBLISHED");
    node.put("remoteId", "remote-9");
    node.put("attempts", 1);
    node.putNull("reason");
    node.put("occurredAt", "2026-11-30T10:00:00.123456789Z");
    return node;
  }

  private static ConsumerRecord<byte[], byte[]> record(
      Consumer<ObjectNode> change, String id, String eventType, String tenant, String key) {
    ObjectNode value = value();
    change.accept(value);
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "herald.delivery.events",
            2,
            41L,
            key == null ? null : key.getBytes(StandardCharsets.UTF_8),
            value.toString().getBytes(StandardCharsets.UTF_8));
    if (id != null) {
      record.headers().add(EventHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
    }
    if (eventType != null) {
      record.headers().add(EventHeaders.EVENT_TYPE, eventType.getBytes(StandardCharsets.UTF_8));
    }
    if (tenant != null) {
      record.headers().add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
    }
    return record;
  }

  private static ConsumerRecord<byte[], byte[]> record(Consumer<ObjectNode> change) {
    return record(change, ID.toString(), "PublicationPublished", "t1", "t1/a-84/dest-a");
  }

  private String invalidDetail(ConsumerRecord<byte[], byte[]> record) {
    Decoded<StatusEvent> decoded = decoder.decode(record);
    assertThat(decoded).isInstanceOf(Decoded.Invalid.class);
    return ((Decoded.Invalid<StatusEvent>) decoded).detail();
  }

  private String invalidReason(ConsumerRecord<byte[], byte[]> record) {
    Decoded<StatusEvent> decoded = decoder.decode(record);
    assertThat(decoded).isInstanceOf(Decoded.Invalid.class);
    return ((Decoded.Invalid<StatusEvent>) decoded).reason();
  }

  @Test
  void shouldDecodeAStatusEventInTheConsumersShape() {
    Decoded<StatusEvent> decoded = decoder.decode(record(v -> {}));

    assertThat(decoded).isInstanceOf(Decoded.Valid.class);
    StatusEvent event = ((Decoded.Valid<StatusEvent>) decoded).value();
    assertThat(event.messageId()).isEqualTo(ID);
    assertThat(event.jobId()).isEqualTo(JOB);
    assertThat(event.tenant()).isEqualTo("t1");
    assertThat(event.state()).isEqualTo("PUBLISHED");
    assertThat(event.remoteId()).isEqualTo("remote-9");
    // Truncated to what PostgreSQL stores, so comparisons agree on both sides.
    assertThat(event.occurredAt()).isEqualTo(Instant.parse("2026-11-30T10:00:00.123456Z"));
  }

  @Test
  void shouldAcceptJsonQuotedHeadersAndANullRemoteId() {
    Decoded<StatusEvent> decoded =
        decoder.decode(
            record(
                v -> v.putNull("remoteId"),
                "\"" + ID + "\"",
                "\"PublicationRetrying\"",
                "\"t1\"",
                "t1/a-84/dest-a"));

    assertThat(decoded).isInstanceOf(Decoded.Valid.class);
    assertThat(((Decoded.Valid<StatusEvent>) decoded).value().remoteId()).isNull();
  }

  @Test
  void shouldRejectRecordsWithoutAUsableIdHeader() {
    assertThat(invalidReason(record(v -> {}, null, "PublicationPublished", "t1", "t1/a-84/dest-a")))
        .isEqualTo("missing_id");
    assertThat(invalidReason(record(v -> {}, "1-2-3-4-5", "PublicationPublished", "t1", "x")))
        .isEqualTo("invalid_id");
  }

  @Test
  void shouldRejectAnEventTypeThatIsNotAStatusEvent() {
    assertThat(invalidReason(record(v -> {}, ID.toString(), "PublicationRequested", "t1", "k")))
        .isEqualTo("unexpected_event_type");
  }

  @Test
  void shouldRejectValuesTheDatabaseWouldRefuse() {
    assertThat(invalidReason(record(v -> v.put("state", "REQUESTED")))).isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.put("jobId", "nope")))).isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.remove("occurredAt")))).isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.put("occurredAt", "+20000-01-01T00:00:00Z"))))
        .isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.put("remoteId", "a\u0000b"))))
        .isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.put("remoteId", 42)))).isEqualTo("invalid_event");
    assertThat(invalidReason(record(v -> v.put("tenant", "")))).isEqualTo("invalid_event");
  }

  @Test
  void shouldNameTheFieldThatIsWrong() {
    assertThat(invalidDetail(record(v -> v.put("jobId", "nope")))).contains("jobId");
    assertThat(invalidDetail(record(v -> v.remove("deliveryId")))).contains("deliveryId");
    assertThat(invalidDetail(record(v -> v.put("state", "DONE")))).contains("state DONE");
    assertThat(invalidDetail(record(v -> v.put("occurredAt", "yesterday")))).contains("occurredAt");
    assertThat(invalidDetail(record(v -> v.put("remoteId", 5)))).contains("remoteId");
    assertThat(invalidDetail(record(v -> v.put("articleId", 5)))).contains("articleId");
  }

  @Test
  void shouldRejectHeadersAndKeyThatDisagreeWithTheValue() {
    assertThat(
            invalidReason(
                record(v -> {}, ID.toString(), "PublicationPublished", "t2", "t1/a-84/dest-a")))
        .isEqualTo("tenant_mismatch");
    assertThat(
            invalidReason(
                record(v -> {}, ID.toString(), "PublicationPublished", "t1", "t1/a-85/dest-a")))
        .isEqualTo("key_mismatch");
  }

  @Test
  void shouldRejectAValueThatIsNotAJsonObject() {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("t", 0, 0L, null, "[1,2]".getBytes(StandardCharsets.UTF_8));
    record.headers().add(EventHeaders.ID, ID.toString().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(EventHeaders.EVENT_TYPE, "PublicationFailed".getBytes(StandardCharsets.UTF_8));

    assertThat(invalidReason(record)).isEqualTo("invalid_json");
  }
}
