package io.herald.relay.sink;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Values;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns the records the outbox {@code EventRouter} emits into Kafka producer records.
 *
 * <p>The conversion is done here rather than by a Kafka Connect converter so that the bytes on the
 * wire are exactly what the contract says: the key and the value are the UTF-8 bytes of the
 * aggregate id and of the payload JSON text, and every header is a plain UTF-8 string (a JSON
 * converter would wrap header strings in quotes). Headers whose value is null (an absent {@code
 * tracestate}, say) are left out.
 *
 * <p>Two kinds of record carry nothing to publish and exist only to move the offset forward:
 * Debezium's own heartbeat records and the change records of the heartbeat table. They convert to
 * {@link Optional#empty()}. A raw change-event envelope from any other table means a table is in
 * the publication without a router in front of it; publishing it would leak row images, skipping it
 * would hide a misconfiguration, so it fails.
 *
 * <p>Immutable and thread-safe.
 */
public final class OutboxRecordConverter {

  private final String heartbeatTopic;
  private final String heartbeatTableTopic;

  /**
   * @param heartbeatTopic the topic Debezium gives its heartbeat records ({@code
   *     topic.heartbeat.prefix + "." + topic.prefix})
   * @param heartbeatTableTopic the topic the heartbeat table's change records carry before any
   *     routing ({@code topic.prefix + "." + schema + "." + table})
   */
  public OutboxRecordConverter(String heartbeatTopic, String heartbeatTableTopic) {
    this.heartbeatTopic = requireText(heartbeatTopic, "heartbeatTopic");
    this.heartbeatTableTopic = requireText(heartbeatTableTopic, "heartbeatTableTopic");
  }

  /**
   * Converts one record.
   *
   * @return the record to send, or empty when the record only advances the offset
   * @throws DataException when the record cannot be published as the contract requires
   */
  public Optional<ProducerRecord<byte[], byte[]>> convert(SourceRecord record) {
    String topic = record.topic();
    if (heartbeatTopic.equals(topic) || heartbeatTableTopic.equals(topic)) {
      return Optional.empty();
    }
    Schema valueSchema = record.valueSchema();
    if (valueSchema != null
        && valueSchema.name() != null
        && valueSchema.name().endsWith(".Envelope")) {
      throw new DataException(
          "Record for topic '"
              + topic
              + "' is a raw change event, not a routed outbox event: a table is in the"
              + " publication without an outbox EventRouter transform (check the"
              + " debezium.transforms.* predicates). Offset: "
              + record.sourceOffset());
    }
    return Optional.of(
        new ProducerRecord<>(
            topic,
            record.kafkaPartition(),
            record.timestamp(),
            bytes(record.key(), record.keySchema(), "key", record),
            bytes(record.value(), valueSchema, "value", record),
            headers(record)));
  }

  private static List<Header> headers(SourceRecord record) {
    List<Header> headers = new ArrayList<>();
    for (org.apache.kafka.connect.header.Header header : record.headers()) {
      if (header.value() == null) {
        continue;
      }
      headers.add(
          new RecordHeader(
              header.key(),
              text(header.value(), header.schema()).getBytes(StandardCharsets.UTF_8)));
    }
    return headers;
  }

  private static byte[] bytes(Object value, Schema schema, String part, SourceRecord record) {
    if (value == null) {
      return null;
    }
    if (value instanceof byte[] raw) {
      return raw;
    }
    if (value instanceof Struct || value instanceof java.util.Map<?, ?>) {
      throw new DataException(
          "Record "
              + part
              + " for topic '"
              + record.topic()
              + "' is structured ("
              + (schema == null ? "schemaless" : schema.name())
              + "); the relay publishes the outbox payload column as JSON text: keep"
              + " table.expand.json.payload=false on the EventRouter. Offset: "
              + record.sourceOffset());
    }
    return text(value, schema).getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Object value, Schema schema) {
    if (value instanceof String string) {
      return string;
    }
    // Same rendering Kafka's SimpleHeaderConverter uses: numbers and booleans as their literal.
    return Values.convertToString(schema, value);
  }

  private static String requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
