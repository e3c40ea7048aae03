package io.herald.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigException;
import io.herald.config.ConfigSource;
import io.herald.devstack.ShippedConfig;
import io.herald.relay.debezium.DebeziumPatches;
import io.herald.relay.sink.KafkaBatchSink;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayConfigTest {

  private static final ShippedConfig SHIPPED = ShippedConfig.of("relay");

  private static ConfigException fails(Map<String, String> props) {
    return assertThrows(
        ConfigException.class, () -> RelayConfig.from(ConfigSource.of(props, Map.of())));
  }

  @Test
  void shouldParseTheShippedPropertyFile() {
    RelayConfig config = RelayConfig.load(SHIPPED.file(), Map.of());

    Map<String, String> source = config.values().passThrough(RelayConfig.DEBEZIUM_SOURCE);

    assertEquals(8082, config.ops().port());
    assertEquals("localhost:9092", config.producer().get("bootstrap.servers"));
    assertEquals(List.of(), config.values().get(RelayConfig.DEBEZIUM_TRANSFORMS));
    assertEquals(
        "io.debezium.connector.postgresql.PostgresConnector", source.get("connector.class"));
    assertEquals("pgoutput", source.get("plugin.name"));
    assertEquals("disabled", source.get("publication.autocreate.mode"));
    assertEquals("false", source.get("extended.headers.enabled"));
    assertEquals(Duration.ofSeconds(10), config.standby().deadPeerTimeout());
    assertEquals(Duration.ofMinutes(10), config.sendRetry().giveUpAfter());
    assertEquals("all", config.producer().get("acks"));
    // Shared by every relay of the slot, so that the one taking over fences the one before it.
    assertEquals("herald-relay-herald_relay", config.producer().get("transactional.id"));
    assertEquals(1L << 30, config.slotLag().warnBytes());
    assertEquals(new KafkaBatchSink.Pipelining(512, 2), config.pipelining());
  }

  @Test
  void shouldDocumentEveryKeyInTheShippedFile() throws IOException {
    SHIPPED.assertDocumentsEveryKey(RelayConfig.definition());
  }

  @Test
  void shouldMapPassThroughEnvironmentVariablesAndMaskThePassword() {
    RelayConfig config =
        RelayConfig.load(
            SHIPPED.file(),
            Map.of(
                "HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME", "db.internal",
                "HERALD_DEBEZIUM_SOURCE_DATABASE_PASSWORD", "dbz-pw-never-logged"));

    assertEquals("db.internal", config.engine().get("database.hostname"));
    assertEquals("dbz-pw-never-logged", config.engine().get("database.password"));
    String rendered = config.effective().render();
    assertFalse(rendered.contains("dbz-pw-never-logged"), rendered);
    assertTrue(rendered.contains("debezium.source.database.password = ****"), rendered);
    assertTrue(
        rendered.contains(
            "debezium.source.database.hostname = db.internal  [env HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME]"),
        rendered);
  }

  @Test
  void shouldFailWhenTheProducerDoesNotWaitForAllReplicas() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("debezium.sink.kafka.producer.acks", "1");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("debezium.sink.kafka.producer.acks=1"), e.getMessage());
  }

  @Test
  void shouldFailWhenBootstrapServersAreSetTwiceDifferently() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("debezium.sink.kafka.producer.bootstrap.servers", "other:9092");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.sink.kafka.producer.bootstrap.servers=other:9092"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("relay.kafka.bootstrap-servers=localhost:9092"), e.getMessage());
  }

  @Test
  void shouldRefuseAStandbyPollThatALiveLeadersLockSessionWouldOutlast() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("relay.standby.poll-interval", "6s");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage()
            .contains(
                "relay.standby.poll-interval=6s is more than half of"
                    + " relay.standby.dead-peer-timeout=10s"),
        e.getMessage());
  }

  @Test
  void shouldFailWhenARequiredSourceKeyIsMissingOrHeadersAreExtended() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.remove("debezium.source.slot.name");
    props.put("debezium.source.extended.headers.enabled", "true");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.source.slot.name: required key is missing"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("debezium.source.extended.headers.enabled=true"), e.getMessage());
  }

  @Test
  void shouldFailWhenANamedTransformHasNoType() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("debezium.transforms", "outbox,route");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.transforms.route.type is not set"), e.getMessage());
  }

  @Test
  void shouldFailOnAMissingBootstrapAndABadSize() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.remove("relay.kafka.bootstrap-servers");
    props.put("relay.slot.lag-warn-bytes", "1GB");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("relay.kafka.bootstrap-servers: required key is missing"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("relay.slot.lag-warn-bytes: invalid value '1GB'"), e.getMessage());
  }

  @Test
  void shouldRefuseAnOwnSocketFactoryWhileTheIdleWaitIsOnAndABadWait() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("debezium.source.database.socketFactory", "com.example.Tunnel");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.source.database.socketFactory replaces"), e.getMessage());
    assertTrue(e.getMessage().contains("relay.stream.idle-wait=0ms"), e.getMessage());

    props.put("relay.stream.idle-wait", "0ms");
    assertEquals(
        "com.example.Tunnel",
        RelayConfig.from(ConfigSource.of(props, Map.of())).engine().get("database.socketFactory"));

    props.remove("debezium.source.database.socketFactory");
    props.put("relay.stream.idle-wait", "5s");
    e = fails(props);
    assertTrue(e.getMessage().contains("relay.stream.idle-wait"), e.getMessage());
    assertTrue(e.getMessage().contains("between 2ms and 1s"), e.getMessage());
  }

  @Test
  void shouldGiveTheHandoffItsLingerOnlyWithThePatchesAndRefuseOneOverASecond() throws IOException {
    String property = "herald.handoff.linger.ms";

    RelayConfig shipped = RelayConfig.from(ConfigSource.of(shippedWith(), Map.of()));
    RelayConfig lingering =
        RelayConfig.from(ConfigSource.of(shippedWith("relay.sink.linger", "20ms"), Map.of()));
    RelayConfig stock =
        RelayConfig.from(
            ConfigSource.of(shippedWith("relay.engine.debezium-patches", "false"), Map.of()));

    assertThat(shipped.engine().get(property)).isEqualTo("2");
    assertThat(lingering.engine().get(property)).isEqualTo("20");
    assertThat(stock.engine().get(property)).isNull();
    assertThat(refusal("relay.sink.linger", "2s"))
        .contains("relay.sink.linger")
        .contains("between 0s and 1s");
  }

  @Test
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    SHIPPED.assertDocsTableMatches(RelayConfig.definition());
  }

  /** The shipped file with {@code overrides} on top ({@code null} removes a key). */
  private static Map<String, String> shippedWith(String... overrides) throws IOException {
    Map<String, String> props = SHIPPED.properties();
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        props.remove(overrides[i]);
      } else {
        props.put(overrides[i], overrides[i + 1]);
      }
    }
    return props;
  }

  private static String refusal(String... overrides) throws IOException {
    return fails(shippedWith(overrides)).getMessage();
  }

  @Test
  void shouldRejectSettingsThatWouldLoseEventsNamingTheKey() throws IOException {
    assertThat(
            refusal(
                "debezium.source.snapshot.mode", "initial",
                "debezium.source.slot.drop.on.stop", "true"))
        .contains("debezium.source.snapshot.mode=initial")
        .contains("debezium.source.slot.drop.on.stop=true");
  }

  @Test
  void shouldRejectAColumnListThatLeavesOutARoutedColumnNamingIt() throws IOException {
    assertThat(
            refusal(
                "debezium.source.column.exclude.list", "writer\\.outbox\\.(payload|occurred_at)"))
        .contains("debezium.source.column.exclude.list=")
        .contains("writer.outbox.payload");
    assertThat(refusal("debezium.source.column.exclude.list", "writer\\.outbox\\.(payload"))
        .contains("debezium.source.column.exclude.list=")
        .contains("not a list of regular expressions");
  }

  @Test
  void shouldRefuseATopicNamingTheOutboxRoutersCannotMatch() throws IOException {
    RelayConfig debeziumNaming =
        RelayConfig.from(
            ConfigSource.of(
                shippedWith(
                    "debezium.source.topic.naming.strategy", DebeziumPatches.STOCK_TOPIC_NAMING),
                Map.of()));

    assertThat(debeziumNaming.engine().get("topic.naming.strategy"))
        .isEqualTo(DebeziumPatches.STOCK_TOPIC_NAMING);
    assertThat(
            refusal(
                "debezium.source.topic.naming.strategy",
                "io.debezium.schema.DefaultTopicNamingStrategy"))
        .contains(
            "debezium.source.topic.naming.strategy=io.debezium.schema.DefaultTopicNamingStrategy"
                + " is not allowed");
    assertThat(refusal("debezium.source.topic.delimiter", "_"))
        .contains("debezium.source.topic.delimiter=_ is not allowed");
  }

  @Test
  void shouldRefuseASecondCopyOfTheSinksKafkaSecurityForTheOffsetStore() throws IOException {
    assertThat(
            refusal(
                "debezium.sink.kafka.producer.security.protocol", "SASL_SSL",
                "debezium.source.security.protocol", "SASL_SSL"))
        .contains(
            "debezium.source.security.protocol: set Kafka client settings once, in"
                + " debezium.sink.kafka.producer.security.protocol");
  }

  @Test
  void shouldRefuseAnotherConnector() throws IOException {
    assertThat(
            refusal(
                "debezium.source.connector.class", "io.debezium.connector.mysql.MySqlConnector"))
        .contains("debezium.source.connector.class=io.debezium.connector.mysql.MySqlConnector");
  }

  @Test
  void shouldRefuseAByteBoundOnTheQueueUnlessThePatchesAreOff() throws IOException {
    assertThat(refusal("debezium.source.max.queue.size.in.bytes", "1000000"))
        .contains("debezium.source.max.queue.size.in.bytes=1000000")
        .contains("debezium.source.max.queue.size");

    RelayConfig stock =
        RelayConfig.from(
            ConfigSource.of(
                shippedWith(
                    "debezium.source.max.queue.size.in.bytes", "1000000",
                    "relay.engine.debezium-patches", "false"),
                Map.of()));
    assertThat(stock.engine().get("max.queue.size.in.bytes")).isEqualTo("1000000");
    assertThat(stock.engine().patches()).isEqualTo(DebeziumPatches.OFF);
  }

  @Test
  void shouldRefuseABatchSizeOrHeartbeatThatIsNotAWholeNumber() throws IOException {
    assertThat(refusal("debezium.source.max.batch.size", "0"))
        .contains("debezium.source.max.batch.size=0 is not a positive whole number");
    assertThat(refusal("debezium.source.heartbeat.interval.ms", "10s"))
        .contains("debezium.source.heartbeat.interval.ms=10s is not a whole number");
  }

  @Test
  void shouldRefuseTheRelaysOwnRouterNames() throws IOException {
    assertThat(
            refusal(
                "debezium.transforms", "heraldWriterOutbox",
                "debezium.transforms.heraldWriterOutbox.type", "x.Y"))
        .contains("debezium.transforms / debezium.predicates: 'heraldWriterOutbox'");
  }

  @Test
  void shouldRefuseEveryProducerSettingTheRelayOwnsNamingIt() throws IOException {
    String message =
        refusal(
            "debezium.sink.kafka.producer.bootstrap.servers", "localhost:9092",
            "debezium.sink.kafka.producer.acks", "all",
            "debezium.sink.kafka.producer.enable.idempotence", "false",
            "debezium.sink.kafka.producer.value.serializer", "x.StringSerializer",
            "debezium.source.bootstrap.servers", "localhost:9092");

    assertThat(message)
        .contains("debezium.sink.kafka.producer.bootstrap.servers=localhost:9092 is set by Herald")
        .contains("debezium.sink.kafka.producer.acks=all is set by Herald")
        .contains("debezium.sink.kafka.producer.enable.idempotence=false is set by Herald")
        .contains(
            "debezium.sink.kafka.producer.value.serializer=x.StringSerializer is set by Herald")
        .contains("debezium.source.bootstrap.servers=localhost:9092 is set by Herald");
  }

  @Test
  void shouldRunStockDebeziumWhenThePatchesAreOffAndAllowAnOwnSocketFactory() throws IOException {
    RelayConfig stock =
        RelayConfig.from(
            ConfigSource.of(
                shippedWith(
                    "relay.engine.debezium-patches", "false",
                    "debezium.source.database.socketFactory", "com.example.Tunnel"),
                Map.of()));

    assertThat(stock.engine().get("connector.class"))
        .isEqualTo("io.debezium.connector.postgresql.PostgresConnector");
    assertThat(stock.engine().get("database.socketFactory")).isEqualTo("com.example.Tunnel");
    assertThat(RelayConfig.load(SHIPPED.file(), Map.of()).engine().get("connector.class"))
        .isEqualTo(DebeziumPatches.ON.connectorClass());
  }

  @Test
  void shouldNameOnlyDefinedKeysInEveryErrorMessageAndKeyDoc() throws IOException {
    List<String> texts = new ArrayList<>();
    List<String[]> badConfigs =
        List.of(
            new String[] {"debezium.sink.kafka.producer.acks", "1"},
            new String[] {"debezium.sink.kafka.producer.bootstrap.servers", "other:9092"},
            new String[] {"debezium.sink.kafka.producer.key.serializer", "x.Y"},
            new String[] {"relay.standby.poll-interval", "6s"},
            new String[] {"relay.sink.retry.max-backoff", "1ms"},
            new String[] {"relay.stream.idle-wait", "5s"},
            new String[] {"relay.slot.lag-warn-bytes", "1GB"},
            new String[] {"relay.kafka.bootstrap-servers", null},
            new String[] {"relay.ops.port", "70000"},
            new String[] {"debezium.source.slot.name", null},
            new String[] {"debezium.source.extended.headers.enabled", "true"},
            new String[] {"debezium.source.database.socketFactory", "com.example.Tunnel"},
            new String[] {"debezium.source.snapshot.mode", "initial"},
            new String[] {"debezium.source.plugin.name", "decoderbufs"},
            new String[] {"debezium.source.offset.storage", "x.FileStore"},
            new String[] {"debezium.source.slot.drop.on.stop", "true"},
            new String[] {"debezium.source.connector.class", "x.MySqlConnector"},
            new String[] {"debezium.source.topic.naming.strategy", "x.Naming"},
            new String[] {"debezium.source.topic.delimiter", "_"},
            new String[] {"debezium.source.max.batch.size", "0"},
            new String[] {"debezium.source.heartbeat.interval.ms", "x"},
            new String[] {"debezium.source.max.queue.size.in.bytes", "1"},
            new String[] {"debezium.source.column.exclude.list", "writer\\.outbox\\.payload"},
            new String[] {"debezium.source.column.include.list", "writer\\.outbox\\.id"},
            new String[] {"debezium.source.database.hostname", " "},
            new String[] {"debezium.source.bootstrap.servers", "k:9092"},
            new String[] {"debezium.transforms", "heraldConsumerOutbox"},
            new String[] {"debezium.predicates", "isOutbox"});
    for (String[] bad : badConfigs) {
      texts.add(refusal(bad));
    }
    texts.add(
        refusal(
            "debezium.sink.kafka.producer.sasl.mechanism", "PLAIN",
            "debezium.source.sasl.mechanism", "PLAIN"));
    RelayConfig.definition().keys().forEach(key -> texts.add(key.doc()));

    List<String> undefined = new ArrayList<>();
    for (String text : texts) {
      RelayConfig.definition()
          .undefinedKeysIn(text)
          .forEach(key -> undefined.add(key + "  in: " + text));
    }

    assertThat(texts).hasSizeGreaterThan(badConfigs.size());
    assertThat(undefined).isEmpty();
  }
}
