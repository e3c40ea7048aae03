package io.herald.relay.recover;

import io.debezium.data.Envelope;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.sink.OutboxRecordConverter;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Turns a retained outbox row into exactly the Kafka record the streaming relay sends for it: the
 * row becomes the change event Debezium would emit for its insert, which runs through the outbox
 * router the engine runs ({@link io.herald.relay.debezium.DebeziumPatches#newRouter()}), configured
 * from the engine properties (the same topic, key, payload and headers), and then through the
 * sink's {@link OutboxRecordConverter} (the same bytes). The partition is left to the producer's
 * partitioner on the key, as in the streaming path. Extra transforms named in {@code
 * debezium.transforms} are not applied: the recovery refuses to run while there are any ({@link
 * SlotRecovery}).
 *
 * <p>Not thread-safe (the router is not); close it to release the router.
 */
final class OutboxRouting implements AutoCloseable {

  private static final Schema UUID_SCHEMA = SchemaBuilder.string().name("io.debezium.data.Uuid");
  private static final Schema JSON_SCHEMA = SchemaBuilder.string().name("io.debezium.data.Json");
  private static final Schema OPTIONAL_TEXT = Schema.OPTIONAL_STRING_SCHEMA;

  private static final Schema SOURCE_SCHEMA =
      SchemaBuilder.struct()
          .name("io.herald.relay.recover.Source")
          .field("recovered", Schema.BOOLEAN_SCHEMA)
          .build();

  private final String changeTopic;
  private final Transformation<SourceRecord> router;
  private final OutboxRecordConverter converter;
  private final Schema rowSchema;
  private final Schema keySchema;
  private final Envelope envelope;

  /**
   * @param engine the relay's engine properties
   * @param routerName the router of this outbox ({@link EngineProperties#ROUTERS})
   * @param schema the outbox's schema ({@code writer} or {@code consumer})
   */
  OutboxRouting(EngineProperties engine, String routerName, String schema) {
    this.changeTopic = engine.topicPrefix() + "." + schema + ".outbox";
    String prefix = "transforms." + routerName + ".";
    Map<String, String> settings = new HashMap<>();
    engine
        .toProperties()
        .stringPropertyNames()
        .forEach(
            key -> {
              if (key.startsWith(prefix)) {
                String setting = key.substring(prefix.length());
                if (!setting.equals("type") && !setting.equals("predicate")) {
                  settings.put(setting, engine.get(key));
                }
              }
            });
    this.router = engine.patches().newRouter();
    router.configure(settings);
    this.converter =
        new OutboxRecordConverter(engine.heartbeatTopic(), engine.heartbeatTableTopic());
    String recordName = changeTopic;
    this.rowSchema =
        SchemaBuilder.struct()
            .name(recordName + ".Value")
            .optional()
            .field("id", UUID_SCHEMA)
            .field("aggregate_type", Schema.STRING_SCHEMA)
            .field("aggregate_id", Schema.STRING_SCHEMA)
            .field("event_type", Schema.STRING_SCHEMA)
            .field("tenant_id", Schema.STRING_SCHEMA)
            .field("payload", JSON_SCHEMA)
            .field("trace_parent", OPTIONAL_TEXT)
            .field("trace_state", OPTIONAL_TEXT)
            .build();
    this.keySchema =
        SchemaBuilder.struct().name(recordName + ".Key").field("id", UUID_SCHEMA).build();
    this.envelope =
        Envelope.defineSchema()
            .withName(recordName + ".Envelope")
            .withRecord(rowSchema)
            .withSource(SOURCE_SCHEMA)
            .build();
  }

  /**
   * The record the relay would send for {@code row}.
   *
   * @throws DataException when the router or the converter cannot turn it into one
   */
  ProducerRecord<byte[], byte[]> convert(OutboxRow row, Instant now) {
    Struct after =
        new Struct(rowSchema)
            .put("id", row.id().toString())
            .put("aggregate_type", row.aggregateType())
            .put("aggregate_id", row.aggregateId())
            .put("event_type", row.eventType())
            .put("tenant_id", row.tenant())
            .put("payload", row.payload())
            .put("trace_parent", row.traceParent())
            .put("trace_state", row.traceState());
    Struct key = new Struct(keySchema).put("id", row.id().toString());
    Struct value = envelope.create(after, new Struct(SOURCE_SCHEMA).put("recovered", true), now);
    SourceRecord change =
        new SourceRecord(
            Map.of("recovered", changeTopic),
            Map.of("id", row.id().toString()),
            changeTopic,
            null,
            keySchema,
            key,
            envelope.schema(),
            value);
    SourceRecord routed = router.apply(change);
    if (routed == null) {
      throw new DataException(
          "The outbox router dropped the recovered row " + row.id() + " of " + changeTopic);
    }
    return converter
        .convert(routed)
        .orElseThrow(
            () ->
                new DataException(
                    "The recovered row "
                        + row.id()
                        + " of "
                        + changeTopic
                        + " converted to nothing"));
  }

  @Override
  public void close() {
    router.close();
  }
}
