package io.herald.relay.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class OutboxRecordConverterTest {

  private final OutboxRecordConverter converter =
      new OutboxRecordConverter("__debezium-heartbeat.herald", "herald.herald_relay.heartbeat");

  private static SourceRecord routed(ConnectHeaders headers) {
    return new SourceRecord(
        Map.of("server", "herald"),
        Map.of("lsn", 1L),
        "herald.publication.events",
        null,
        Schema.STRING_SCHEMA,
        "t1/a-84/dest-a",
        Schema.OPTIONAL_STRING_SCHEMA,
        "{\"jobId\": \"x\"}",
        1_000L,
        headers);
  }

  @Test
  void shouldPublishKeyPayloadAndHeadersAsPlainUtf8Strings() {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("id", "0193a3c4-0000-7000-8000-000000000001");
    headers.addString("eventType", "PublicationRequested");
    headers.addString("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    headers.add("tracestate", null, Schema.OPTIONAL_STRING_SCHEMA);

    ProducerRecord<byte[], byte[]> record = converter.convert(routed(headers)).orElseThrow();

    assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("t1/a-84/dest-a");
    assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("{\"jobId\": \"x\"}");
    assertThat(
            new String(record.headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8))
        .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8))
        .isEqualTo("0193a3c4-0000-7000-8000-000000000001");
    assertThat(record.headers().lastHeader("tracestate")).isNull();
    assertThat(record.topic()).isEqualTo("herald.publication.events");
  }

  @Test
  void shouldSkipHeartbeatsAndHeartbeatTableRecords() {
    SourceRecord heartbeat =
        new SourceRecord(Map.of(), Map.of(), "__debezium-heartbeat.herald", null, null, null, null);
    SourceRecord heartbeatRow =
        new SourceRecord(
            Map.of(), Map.of(), "herald.herald_relay.heartbeat", null, null, null, null);

    assertThat(converter.convert(heartbeat)).isEmpty();
    assertThat(converter.convert(heartbeatRow)).isEmpty();
  }

  @Test
  void shouldRefuseARawChangeEventFromATableWithoutRouter() {
    Schema envelope = SchemaBuilder.struct().name("herald.writer.other.Envelope").build();
    SourceRecord raw =
        new SourceRecord(
            Map.of(),
            Map.of("lsn", 5L),
            "herald.writer.other",
            null,
            null,
            envelope,
            new Struct(envelope));

    assertThatThrownBy(() -> converter.convert(raw))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("without an outbox EventRouter");
  }
}
