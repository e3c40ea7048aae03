package io.herald.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigException;
import io.herald.config.ConfigSource;
import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import java.time.Duration;
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

    assertEquals(8082, config.opsPort());
    assertEquals("localhost:9092", config.kafkaBootstrapServers());
    assertEquals(List.of(), config.debeziumTransforms());
    assertEquals(
        "io.debezium.connector.postgresql.PostgresConnector",
        config.debeziumSource().get("connector.class"));
    assertEquals("pgoutput", config.debeziumSource().get("plugin.name"));
    assertEquals("disabled", config.debeziumSource().get("publication.autocreate.mode"));
    assertEquals("false", config.debeziumSource().get("extended.headers.enabled"));
    assertEquals(Duration.ofSeconds(10), config.standbyDeadPeerTimeout());
    assertEquals(Duration.ofMinutes(10), config.sinkRetryGiveUpAfter());
    assertEquals("all", config.kafkaProducer().get("acks"));
    assertEquals(1L << 30, config.slotLagWarnBytes());
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

    assertEquals("db.internal", config.debeziumSource().get("database.hostname"));
    assertEquals("dbz-pw-never-logged", config.debeziumSource().get("database.password"));
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
        RelayConfig.from(ConfigSource.of(props, Map.of()))
            .debeziumSource()
            .get("database.socketFactory"));

    props.remove("debezium.source.database.socketFactory");
    props.put("relay.stream.idle-wait", "5s");
    e = fails(props);
    assertTrue(e.getMessage().contains("relay.stream.idle-wait"), e.getMessage());
    assertTrue(e.getMessage().contains("between 2ms and 1s"), e.getMessage());
  }

  @Test
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    SHIPPED.assertDocsTableMatches(RelayConfig.definition());
  }
}
