package io.herald.relay.recover;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.ShippedConfig;
import io.herald.relay.config.RelayConfig;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** A retained row through the relay's own router and converter, as the shipped relay routes it. */
class OutboxRoutingTest {

  private static final UUID ID = UUID.fromString("0190b3c0-1234-7000-8000-00000000000a");
  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

  private static OutboxRow row(String traceState) {
    return new OutboxRow(
        ID,
        "publication",
        "t1/a-1/dest-a",
        "PublicationRequested",
        "t1",
        "{\"jobId\": \"j\"}",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        traceState,
        NOW);
  }

  private static Map<String, String> headers(ProducerRecord<byte[], byte[]> record) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }

  @Test
  void shouldRouteAWriterRowToThePublicationTopicWithTheContractsKeyValueAndHeaders() {
    RelayConfig config = RelayConfig.load(ShippedConfig.of("relay").file(), Map.of());
    try (OutboxRouting routing =
        new OutboxRouting(config.engine(), "heraldWriterOutbox", "writer")) {
      ProducerRecord<byte[], byte[]> record = routing.convert(row("k=v"), NOW);

      assertThat(record.topic()).isEqualTo("herald.publication.events");
      assertThat(record.partition()).as("left to the partitioner, as streamed").isNull();
      assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("t1/a-1/dest-a");
      assertThat(new String(record.value(), StandardCharsets.UTF_8))
          .isEqualTo("{\"jobId\": \"j\"}");
      assertThat(headers(record))
          .containsEntry("id", ID.toString())
          .containsEntry("eventType", "PublicationRequested")
          .containsEntry("tenant", "t1")
          .containsEntry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
          .containsEntry("tracestate", "k=v");
    }
  }

  @Test
  void shouldLeaveAnAbsentTraceStateOutAndRouteConsumerRowsToTheDeliveryTopic() {
    RelayConfig config = RelayConfig.load(ShippedConfig.of("relay").file(), Map.of());
    try (OutboxRouting routing =
        new OutboxRouting(config.engine(), "heraldConsumerOutbox", "consumer")) {
      ProducerRecord<byte[], byte[]> record = routing.convert(row(null), NOW);

      assertThat(record.topic()).isEqualTo("herald.delivery.events");
      assertThat(headers(record)).doesNotContainKey("tracestate").containsKey("traceparent");
    }
  }
}
