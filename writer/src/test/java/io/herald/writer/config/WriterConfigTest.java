package io.herald.writer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigSource;
import io.herald.devstack.ShippedConfig;
import io.herald.writer.outbox.OutboxRetention;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WriterConfigTest {

  private static final ShippedConfig SHIPPED = ShippedConfig.of("writer");

  private static ConfigException fails(Map<String, String> props, Map<String, String> env) {
    return assertThrows(
        ConfigException.class, () -> WriterConfig.from(ConfigSource.of(props, env)));
  }

  @Test
  void shouldParseTheShippedPropertyFile() {
    WriterConfig config = WriterConfig.load(SHIPPED.file(), Map.of());

    assertEquals(8080, config.http().port());
    assertEquals(1L << 20, config.api().requestMaxBytes());
    assertEquals(Duration.ofSeconds(30), config.http().readTimeout());
    assertEquals("jdbc:postgresql://localhost:5432/herald", config.database().jdbcUrl());
    // Kept a day so that `herald relay recover` can republish rows after a lost slot (issue 18).
    assertEquals(OutboxRetention.KEEP, config.outboxRetention());
    assertEquals(Duration.ofDays(1), config.retention().outbox().orElseThrow().retention());
    assertEquals(8081, config.ops().port());
    assertEquals("herald_outbox", config.capture().publication());
    assertEquals(2, config.tenantTokens().tenants().size());
  }

  @Test
  void shouldDocumentEveryKeyInTheShippedFile() throws IOException {
    SHIPPED.assertDocumentsEveryKey(WriterConfig.definition(), "t1");
  }

  @Test
  void shouldLetTheEnvironmentWinOverTheFile() {
    WriterConfig config =
        WriterConfig.load(
            SHIPPED.file(),
            Map.of("HERALD_WRITER_HTTP_PORT", "9090", "HERALD_WRITER_DB_POOL_SIZE", "3"));

    assertEquals(9090, config.http().port());
    assertEquals(3, config.database().poolSize());
  }

  @Test
  void shouldNeverRenderThePassword() {
    WriterConfig config =
        WriterConfig.load(SHIPPED.file(), Map.of("HERALD_WRITER_DB_PASSWORD", "pw-never-logged"));

    assertEquals("pw-never-logged", config.database().password());
    assertFalse(config.effective().render().contains("pw-never-logged"));
    assertFalse(config.toString().contains("pw-never-logged"));
    assertFalse(config.database().toString().contains("pw-never-logged"));
    assertTrue(config.effective().render().contains("writer.db.password = ****"));
  }

  @Test
  void shouldFailOnAnUnknownKeyNamingIt() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.http.prot", "1");

    ConfigException e = fails(props, Map.of());

    assertTrue(e.getMessage().contains("writer.http.prot: unknown key"), e.getMessage());
    assertTrue(e.getMessage().contains("did you mean writer.http.port?"), e.getMessage());
  }

  @Test
  void shouldFailOnAMissingRequiredKeyNamingIt() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.remove("writer.db.jdbc-url");

    ConfigException e = fails(props, Map.of());

    assertTrue(
        e.getMessage().contains("writer.db.jdbc-url: required key is missing"), e.getMessage());
  }

  @Test
  void shouldFailOnABadNumberNamingKeyAndValue() throws IOException {
    ConfigException e =
        fails(SHIPPED.properties(), Map.of("HERALD_WRITER_BATCH_MAX_ITEMS", "lots"));

    assertTrue(
        e.getMessage().contains("writer.batch.max-items: invalid value 'lots'"), e.getMessage());
  }

  @Test
  void shouldFailWhenKeepRetentionHasNoDays() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.outbox.retention", "keep");
    props.put("writer.outbox.keep-days", "0");

    ConfigException e = fails(props, Map.of());

    assertTrue(e.getMessage().contains("writer.outbox.keep-days=0"), e.getMessage());
    assertTrue(e.getMessage().contains("writer.outbox.retention=keep"), e.getMessage());
  }

  @Test
  void shouldFailWhenGroupCommitsInFlightLeaveNoPooledConnection() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.db.pool-size", "4");
    props.put("writer.group-commit.max-in-flight", "4");

    ConfigException e = fails(props, Map.of());

    assertTrue(e.getMessage().contains("writer.group-commit.max-in-flight=4"), e.getMessage());
    assertTrue(e.getMessage().contains("writer.db.pool-size=4"), e.getMessage());
  }

  @Test
  void shouldAcceptDeleteImmediatelyRetention() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.outbox.retention", "delete-immediately");

    assertEquals(
        OutboxRetention.DELETE_IMMEDIATELY,
        WriterConfig.from(ConfigSource.of(props, Map.of())).outboxRetention());
  }

  @Test
  void shouldFailWhenTwoTenantsShareAToken() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.tenants.t2.token-sha256", props.get("writer.tenants.t1.token-sha256"));

    ConfigException e = fails(props, Map.of());

    assertTrue(
        e.getMessage()
            .contains("writer.tenants.t1.token-sha256 and writer.tenants.t2.token-sha256"),
        e.getMessage());
  }

  @Test
  void shouldFailOnATokenThatIsNotAHashWithoutShowingIt() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.tenants.t1.token-sha256", "clear-text-token");

    ConfigException e = fails(props, Map.of());

    assertTrue(
        e.getMessage().contains("writer.tenants.t1.token-sha256: invalid value ****"),
        e.getMessage());
    assertFalse(e.getMessage().contains("clear-text-token"), e.getMessage());
  }

  @Test
  void shouldReadTheAllowedDestinationsAndAllowAnyWhenUnset() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.destinations.allowed", " dest-a , dest-b");
    assertEquals(
        Set.of("dest-a", "dest-b"),
        WriterConfig.from(ConfigSource.of(props, Map.of())).api().allowedDestinations());

    props.remove("writer.destinations.allowed");
    assertEquals(
        Set.of(), WriterConfig.from(ConfigSource.of(props, Map.of())).api().allowedDestinations());
  }

  @Test
  void shouldFailOnAnAllowedDestinationNoPublicationCanNameNamingTheKey() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.destinations.allowed", "dest-a,dest/b");

    ConfigException e = fails(props, Map.of());

    assertTrue(e.getMessage().contains("writer.destinations.allowed: 'dest/b'"), e.getMessage());
  }

  @Test
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    SHIPPED.assertDocsTableMatches(WriterConfig.definition());
  }

  @Test
  void shouldRefuseAPassThroughSettingHeraldOwnsNamingIt() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.kafka.consumer.enable.auto.commit", "true");
    props.put("writer.kafka.consumer.max.poll.records", "10");

    ConfigException e = fails(props, Map.of());

    assertTrue(
        e.getMessage().contains("writer.kafka.consumer.enable.auto.commit=true"), e.getMessage());
    assertTrue(
        e.getMessage().contains("writer.kafka.consumer.max.poll.records=10"), e.getMessage());
    assertTrue(e.getMessage().contains("use writer.status.max-poll-records"), e.getMessage());
  }

  @Test
  void shouldBuildNoStatusSettingsWhenTheStatusViewIsOff() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.status.enabled", "false");

    assertTrue(WriterConfig.from(ConfigSource.of(props, Map.of())).status().isEmpty());
  }

  @Test
  void shouldBuildTheComponentRecordsFromTheirKeys() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.http.queue-timeout", "3s");
    props.put("writer.batch.max-items", "7");
    props.put("writer.status.topic", "statuses");
    props.put("writer.db.startup-timeout", "9s");
    props.put("writer.capture.slot", "other_slot");

    WriterConfig config = WriterConfig.from(ConfigSource.of(props, Map.of()));

    assertEquals(Duration.ofSeconds(3), config.http().queueTimeout());
    assertEquals(7, config.api().batchMaxItems());
    assertEquals("statuses", config.status().orElseThrow().topic());
    assertEquals(Duration.ofSeconds(9), config.startup().startupTimeout());
    assertEquals("other_slot", config.capture().slot());
  }

  @Test
  void shouldPurgeTheOutboxOnlyWhenKeptAndTheInboxOnlyWithTheStatusView() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.outbox.retention", "delete-immediately");
    WriterConfig deleted = WriterConfig.from(ConfigSource.of(props, Map.of()));
    props.put("writer.outbox.retention", "keep");
    props.put("writer.outbox.keep-days", "3");
    props.put("writer.status.enabled", "false");
    WriterConfig kept = WriterConfig.from(ConfigSource.of(props, Map.of()));

    assertTrue(deleted.retention().outbox().isEmpty());
    assertEquals(Duration.ofDays(7), deleted.retention().inbox().orElseThrow().retention());
    assertEquals(Duration.ofDays(3), kept.retention().outbox().orElseThrow().retention());
    assertEquals(100, kept.retention().outbox().orElseThrow().purgeMaxBatches());
    assertTrue(kept.retention().inbox().isEmpty());
  }

  /**
   * Every key an error message names must exist, or be the key the configuration itself got wrong:
   * a message that sends the reader to a key that does not exist is worse than none. The bad
   * configurations: every key with values it cannot take, every key misspelt, every required key
   * missing, and every contradiction the writer checks.
   */
  @Test
  void shouldNameOnlyDefinedKeysInEveryErrorMessage() throws IOException {
    ConfigDef def = WriterConfig.definition();
    List<Map<String, String>> bad = new ArrayList<>();
    for (ConfigKey<?> key : def.keys()) {
      for (String value : List.of("#bad#", "-1", "0", "99999999999", "true")) {
        bad.add(Map.of(key.name(), value));
      }
      bad.add(Map.of(key.name() + "x", "1"));
    }
    for (String value : List.of("#bad#", "ABC", "")) {
      bad.add(Map.of("writer.tenants.t1.token-sha256", value));
    }
    bad.add(Map.of("writer.tenants.t1.token-shaa256", "1"));
    bad.add(
        Map.of(
            "writer.outbox.retention", "keep",
            "writer.outbox.keep-days", "0"));
    bad.add(Map.of("writer.group-commit.max-in-flight", "11", "writer.db.pool-size", "10"));
    for (String owned :
        List.of(
            "bootstrap.servers",
            "group.id",
            "enable.auto.commit",
            "max.poll.records",
            "key.deserializer",
            "value.deserializer")) {
      bad.add(Map.of(WriterConfig.KAFKA_CONSUMER + owned, "x"));
    }
    Map<String, String> shipped = SHIPPED.properties();
    bad.add(
        Map.of("writer.tenants.t2.token-sha256", shipped.get("writer.tenants.t1.token-sha256")));

    List<String> messages = new ArrayList<>();
    List<String> undefined = new ArrayList<>();
    for (Map<String, String> change : bad) {
      for (String message : messagesOf(withChange(shipped, change))) {
        messages.add(message);
        for (String named : def.undefinedKeysIn(message)) {
          if (!change.containsKey(named)) {
            undefined.add(named + " in: " + message);
          }
        }
      }
    }
    Map<String, String> noTenants = new HashMap<>(shipped);
    noTenants.keySet().removeIf(k -> k.startsWith("writer.tenants."));
    List<Map<String, String>> missing = new ArrayList<>(List.of(noTenants));
    for (ConfigKey<?> key : def.keys()) {
      if (key.required()) {
        Map<String, String> without = new HashMap<>(shipped);
        without.remove(key.name());
        missing.add(without);
      }
    }
    for (Map<String, String> props : missing) {
      for (String message : messagesOf(props)) {
        messages.add(message);
        def.undefinedKeysIn(message).forEach(named -> undefined.add(named + " in: " + message));
      }
    }

    assertTrue(messages.size() > 100, "too few failing configurations: " + messages.size());
    assertEquals(List.of(), undefined);
  }

  private static Map<String, String> withChange(
      Map<String, String> base, Map<String, String> change) {
    Map<String, String> props = new HashMap<>(base);
    props.putAll(change);
    return props;
  }

  private static List<String> messagesOf(Map<String, String> props) {
    try {
      WriterConfig.from(ConfigSource.of(props, Map.of()));
      return List.of();
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
