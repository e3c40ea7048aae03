package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.data.Envelope;
import io.debezium.transforms.outbox.EventRouter;
import io.herald.devstack.ShippedConfig;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;

/**
 * The patched router beside Debezium's, both configured as the shipped relay configures its writer
 * outbox's router: the same records out for every kind of record in.
 */
class FixedTopicEventRouterTest {

  private static final String CHANGE_TOPIC = "herald.writer.outbox";
  private static final Instant AT = Instant.parse("2026-12-06T10:00:00Z");

  private static final Schema ROW =
      SchemaBuilder.struct()
          .name(CHANGE_TOPIC + ".Value")
          .optional()
          .field("id", SchemaBuilder.string().name("io.debezium.data.Uuid").build())
          .field("aggregate_type", Schema.STRING_SCHEMA)
          .field("aggregate_id", Schema.STRING_SCHEMA)
          .field("event_type", Schema.STRING_SCHEMA)
          .field("tenant_id", Schema.STRING_SCHEMA)
          .field("payload", SchemaBuilder.string().name("io.debezium.data.Json").build())
          .field("trace_parent", Schema.OPTIONAL_STRING_SCHEMA)
          .field("trace_state", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  private static final Schema KEY =
      SchemaBuilder.struct().name(CHANGE_TOPIC + ".Key").field("id", Schema.STRING_SCHEMA).build();

  private static final Schema SOURCE =
      SchemaBuilder.struct().name("test.Source").field("db", Schema.STRING_SCHEMA).build();

  private static final Envelope ENVELOPE =
      Envelope.defineSchema()
          .withName(CHANGE_TOPIC + ".Envelope")
          .withRecord(ROW)
          .withSource(SOURCE)
          .build();

  /** The shipped relay's settings of its writer outbox router, without its type and predicate. */
  private static Map<String, String> shippedRouterSettings() {
    EngineProperties engine = RelayConfig.load(ShippedConfig.of("relay").file(), Map.of()).engine();
    String prefix = "transforms." + EngineProperties.ROUTERS.getFirst() + ".";
    Map<String, String> settings = new HashMap<>();
    for (String key : engine.toProperties().stringPropertyNames()) {
      if (key.startsWith(prefix)) {
        settings.put(key.substring(prefix.length()), engine.get(key));
      }
    }
    assertThat(settings.remove("type"))
        .as("the shipped relay runs the patched router")
        .isEqualTo(FixedTopicEventRouter.class.getName());
    settings.remove("predicate");
    return settings;
  }

  private static <T extends Transformation<SourceRecord>> T configured(
      T router, UnaryOperator<Map<String, String>> change) {
    router.configure(change.apply(shippedRouterSettings()));
    return router;
  }

  private static Struct row(String aggregateType, String traceState) {
    return new Struct(ROW)
        .put("id", "0190b3c0-1234-7000-8000-00000000000a")
        .put("aggregate_type", aggregateType)
        .put("aggregate_id", "t1/a-1/dest-a")
        .put("event_type", "PublicationRequested")
        .put("tenant_id", "t1")
        .put("payload", "{\"jobId\": \"j\"}")
        .put("trace_parent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .put("trace_state", traceState);
  }

  private static SourceRecord change(Struct value) {
    return new SourceRecord(
        Map.of("server", "herald"),
        Map.of("lsn", 42L),
        CHANGE_TOPIC,
        null,
        KEY,
        new Struct(KEY).put("id", "0190b3c0-1234-7000-8000-00000000000a"),
        ENVELOPE.schema(),
        value,
        AT.toEpochMilli());
  }

  private static SourceRecord insert(String aggregateType, String traceState) {
    return change(
        ENVELOPE.create(
            row(aggregateType, traceState), new Struct(SOURCE).put("db", "herald"), AT));
  }

  /** Each record the two routers are compared on, made afresh per router (routers add headers). */
  private static List<SourceRecord> records() {
    return List.of(
        insert("publication", "k=v"),
        insert("publication", null),
        insert("two\nlines", "k=v"),
        change(ENVELOPE.delete(row("publication", null), new Struct(SOURCE).put("db", "x"), AT)),
        new SourceRecord(
            Map.of("server", "herald"),
            Map.of("lsn", 43L),
            "__debezium-heartbeat.herald",
            Schema.STRING_SCHEMA,
            "heartbeat"));
  }

  private record Routed(
      String topic,
      Integer partition,
      Schema keySchema,
      Object key,
      Schema valueSchema,
      Object value,
      Long timestamp,
      List<String> headers,
      Map<String, ?> sourceOffset) {

    private static List<String> headers(SourceRecord record) {
      List<String> headers = new ArrayList<>();
      for (Header header : record.headers()) {
        headers.add(header.toString());
      }
      return headers;
    }

    static Routed of(SourceRecord record) {
      if (record == null) {
        return null;
      }
      return new Routed(
          record.topic(),
          record.kafkaPartition(),
          record.keySchema(),
          record.key(),
          record.valueSchema(),
          record.value(),
          record.timestamp(),
          headers(record),
          record.sourceOffset());
    }
  }

  @Test
  void shouldRouteEveryKindOfRecordAsDebeziumsRouterDoes() {
    EventRouter<SourceRecord> stock = configured(new EventRouter<>(), settings -> settings);
    FixedTopicEventRouter patched = configured(new FixedTopicEventRouter(), settings -> settings);

    List<Routed> expected = records().stream().map(stock::apply).map(Routed::of).toList();
    List<Routed> actual = records().stream().map(patched::apply).map(Routed::of).toList();

    assertThat(actual).isEqualTo(expected);
    assertThat(actual.get(0).topic()).isEqualTo("herald.publication.events");
    assertThat(actual.get(0).headers()).hasSize(5);
    assertThat(actual.get(2).topic())
        .as("a route-by value the regex does not match keeps its name, as Debezium leaves it")
        .isEqualTo("two\nlines");
    assertThat(actual.get(3)).as("a delete is dropped").isNull();
    assertThat(actual.get(4).topic()).isEqualTo("__debezium-heartbeat.herald");
  }

  @Test
  void shouldRouteAsDebeziumsRouterDoesUnderAConfiguredRegex() {
    UnaryOperator<Map<String, String>> onlyPublications =
        settings -> {
          settings.put(FixedTopicEventRouter.REGEX, "publi.*");
          return settings;
        };
    EventRouter<SourceRecord> stock = configured(new EventRouter<>(), onlyPublications);
    FixedTopicEventRouter patched = configured(new FixedTopicEventRouter(), onlyPublications);

    for (String aggregateType : List.of("publication", "delivery")) {
      assertThat(Routed.of(patched.apply(insert(aggregateType, "k=v"))))
          .isEqualTo(Routed.of(stock.apply(insert(aggregateType, "k=v"))));
    }
    assertThat(patched.apply(insert("delivery", null)).topic()).isEqualTo("delivery");
  }

  @Test
  void shouldReturnTheRecordItDoesNotRouteItself() {
    FixedTopicEventRouter patched = configured(new FixedTopicEventRouter(), settings -> settings);
    SourceRecord heartbeat = records().getLast();

    assertThat(patched.apply(heartbeat)).isSameAs(heartbeat);
  }

  @Test
  void shouldRefuseAReplacementThatIsNotATopicName() {
    for (String replacement : List.of("outbox.${routedByValue}", "a\\.b", " ")) {
      assertThatThrownBy(
              () ->
                  configured(
                      new FixedTopicEventRouter(),
                      settings -> {
                        settings.put(FixedTopicEventRouter.REPLACEMENT, replacement);
                        return settings;
                      }))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(FixedTopicEventRouter.REPLACEMENT);
    }
    assertThatThrownBy(
            () ->
                configured(
                    new FixedTopicEventRouter(),
                    settings -> {
                      settings.put(FixedTopicEventRouter.REGEX, "(unclosed");
                      return settings;
                    }))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FixedTopicEventRouter.REGEX);
  }
}
