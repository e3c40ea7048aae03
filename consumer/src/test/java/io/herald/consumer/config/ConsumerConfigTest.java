package io.herald.consumer.config;

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
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConsumerConfigTest {

  private static Path shipped() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("connect-config"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "connect-config/ not found above " + Path.of("").toAbsolutePath());
    }
    return dir.resolve("connect-config/consumer.properties");
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
        ConfigException.class, () -> ConsumerConfig.from(ConfigSource.of(props, Map.of())));
  }

  @Test
  void shouldParseTheShippedPropertyFile() {
    ConsumerConfig config = ConsumerConfig.load(shipped(), Map.of());

    assertEquals(8083, config.opsPort());
    assertEquals("herald-consumer", config.groupId());
    assertEquals(Duration.ofMinutes(2), config.lease());
    assertEquals("false", config.kafkaConsumer().get("enable.auto.commit"));
    assertEquals(2, config.destinations().size());
    ConsumerConfig.Destination a = config.destinations().get("dest-a");
    assertTrue(a.idempotencyKeySupported());
    assertEquals(Duration.ofSeconds(30), a.readTimeout());
    assertEquals(Optional.empty(), a.authToken());
  }

  @Test
  void shouldDocumentEveryKeyInTheShippedFile() throws IOException {
    String text = Files.readString(shipped());

    for (ConfigKey<?> key : ConsumerConfig.definition().keys()) {
      assertTrue(text.contains(key.name()), key.name() + " is not in " + shipped());
    }
    for (ConfigKey<?> key : ConsumerConfig.DESTINATIONS.keys()) {
      assertTrue(text.contains(".dest-a." + key.name()), key.name() + " is not in " + shipped());
    }
  }

  @Test
  void shouldTakeADestinationTokenFromTheEnvironmentAndNeverRenderIt() {
    ConsumerConfig config =
        ConsumerConfig.load(
            shipped(),
            Map.of("HERALD_CONSUMER_DESTINATIONS_DEST_A_AUTH_TOKEN", "tok-never-logged"));

    assertEquals(Optional.of("tok-never-logged"), config.destinations().get("dest-a").authToken());
    assertFalse(config.effective().render().contains("tok-never-logged"));
    assertFalse(config.destinations().get("dest-a").toString().contains("tok-never-logged"));
  }

  @Test
  void shouldAddADestinationDefinedOnlyInTheEnvironment() {
    ConsumerConfig config =
        ConsumerConfig.load(
            shipped(), Map.of("HERALD_CONSUMER_DESTINATIONS_DEST_C_BASE_URL", "https://c.example"));

    assertEquals("https://c.example", config.destinations().get("dest-c").baseUrl());
  }

  @Test
  void shouldFailWhenBackoffBaseExceedsMax() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("consumer.dispatch.backoff-base", "10m");
    props.put("consumer.dispatch.backoff-max", "1m");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.dispatch.backoff-base=10m"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.dispatch.backoff-max=1m"), e.getMessage());
  }

  @Test
  void shouldFailWhenTheLeaseIsShorterThanADestinationCall() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("consumer.dispatch.lease", "20s");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.dispatch.lease=20s"), e.getMessage());
    assertTrue(
        e.getMessage().contains("consumer.destinations.dest-a.read-timeout=30s"), e.getMessage());
  }

  @Test
  void shouldFailWhenInboxRetentionIsShorterThanTheRedeliveryWindow() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("consumer.inbox.retention", "1d");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.inbox.retention=1d"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.inbox.redelivery-window=7d"), e.getMessage());
  }

  @Test
  void shouldFailWhenKafkaGroupIsSetTwiceDifferently() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("kafka.consumer.group.id", "other");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("kafka.consumer.group.id=other"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.kafka.group-id=herald-consumer"), e.getMessage());
  }

  @Test
  void shouldFailOnABadDestinationUrlAndDurationNamingThem() throws IOException {
    Map<String, String> props = shippedProperties();
    props.put("consumer.destinations.dest-b.base-url", "ftp://nope");
    props.put("consumer.destinations.dest-b.read-timeout", "30");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage()
            .contains("consumer.destinations.dest-b.base-url: invalid value 'ftp://nope'"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("consumer.destinations.dest-b.read-timeout: invalid value '30'"),
        e.getMessage());
  }

  @Test
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    Path doc = shipped().getParent().getParent().resolve("docs/configuration.md");
    String text = Files.readString(doc);
    String begin = "<!-- BEGIN consumer -->\n";
    String end = "<!-- END consumer -->";
    int from = text.indexOf(begin) + begin.length();
    int to = text.indexOf(end);
    String expected = ConsumerConfig.definition().markdownTable();
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
