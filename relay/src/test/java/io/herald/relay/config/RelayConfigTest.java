package io.herald.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.config.ConfigException;
import io.herald.common.config.ConfigKey;
import io.herald.common.config.ConfigSource;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class RelayConfigTest {

  private static Path shipped() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("connect-config"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "connect-config/ not found above " + Path.of("").toAbsolutePath());
    }
    return dir.resolve("connect-config/relay.properties");
  }

  private static Map<String, String> shippedProperties() throws IOException {
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(shipped())) {
      props.load(reader);
    }
    Map<String, String> map = new HashMap<>();
    props.stringPropertyNames().forEach(k -> map.put(k, props.getProperty(k)));
    return map;
  }

  private static ConfigException fails(Map<String, String> props) {
    return assertThrows(
        ConfigException.class, () -> RelayConfig.from(ConfigSource.of(props, Map.of())));
  }

  @Test
  void shouldParseTheShippedPropertyFile() {
    RelayConfig config = RelayConfig.load(shipped(), Map.of());

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
    String text = Files.readString(shipped());

    for (ConfigKey<?> key : RelayConfig.definition().keys()) {
      assertTrue(text.contains(key.name()), key.name() + " is not in " + shipped());
    }
  }

  @Test
  void shouldMapPassThroughEnvironmentVariablesAndMaskThePassword() {
    RelayConfig config =
        RelayConfig.load(
            shipped(),
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
    Map<String, String> props = shippedProperties();
    props.put("debezium.sink.kafka.producer.acks", "1");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("debezium.sink.kafka.producer.acks=1"), e.getMessage());
  }

  @Test
  void shouldFailWhenBootstrapServersAreSetTwiceDifferently() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("debezium.sink.kafka.producer.bootstrap.servers", "other:9092");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.sink.kafka.producer.bootstrap.servers=other:9092"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("relay.kafka.bootstrap-servers=localhost:9092"), e.getMessage());
  }

  @Test
  void shouldDeriveTheJdbcConnectionFromTheSourceSettings() {
    RelayConfig config =
        RelayConfig.load(shipped(), Map.of("HERALD_DEBEZIUM_SOURCE_DATABASE_PASSWORD", "pw"));

    assertEquals("jdbc:postgresql://localhost:5432/herald", config.database().jdbcUrl());
    assertEquals("postgres", config.database().user());
    assertEquals("pw", config.database().password());
  }

  @Test
  void shouldFailWhenARequiredSourceKeyIsMissingOrHeadersAreExtended() throws IOException {
    Map<String, String> props = shippedProperties();
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
    Map<String, String> props = shippedProperties();
    props.put("debezium.transforms", "outbox,route");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("debezium.transforms.route.type is not set"), e.getMessage());
  }

  @Test
  void shouldFailOnAMissingBootstrapAndABadSize() throws IOException {
    Map<String, String> props = shippedProperties();
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
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    Path doc = shipped().getParent().getParent().resolve("docs/configuration.md");
    String text = Files.readString(doc);
    String begin = "<!-- BEGIN relay -->\n";
    String end = "<!-- END relay -->";
    int from = text.indexOf(begin) + begin.length();
    int to = text.indexOf(end);
    String expected = RelayConfig.definition().markdownTable();
    if (Boolean.getBoolean("herald.docs.write")) {
      Files.writeString(doc, text.substring(0, from) + expected + text.substring(to));
      return;
    }
    assertEquals(
        expected,
        text.substring(from, to),
        "docs/configuration.md is out of date; rerun with -Dherald.docs.write=true");
  }
}
