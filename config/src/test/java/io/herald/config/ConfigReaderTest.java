package io.herald.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigReaderTest {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("demo");
  static final ConfigKey<Integer> PORT =
      KEYS.define(
          ConfigKey.optional("demo.http.port", ConfigType.INT, 8080, "port")
              .validatedBy(Validator.port()));
  static final ConfigKey<String> URL =
      KEYS.define(ConfigKey.required("demo.db.jdbc-url", ConfigType.STRING, "url"));
  static final ConfigKey<String> PASSWORD =
      KEYS.define(ConfigKey.optional("demo.db.password", ConfigType.STRING, null, "pw").secret());
  static final ConfigKey<String> SIGNING =
      KEYS.define(
          ConfigKey.optional("demo.signing", ConfigType.STRING, null, "declared secret").secret());
  static final ConfigKey<Duration> TIMEOUT =
      KEYS.define(
          ConfigKey.optional("demo.timeout", ConfigType.DURATION, Duration.ofSeconds(30), "t"));
  static final ConfigKey<Boolean> ENABLED =
      KEYS.define(ConfigKey.optional("demo.enabled", ConfigType.BOOLEAN, true, "e"));
  static final ConfigGroup DESTS = KEYS.group("demo.destinations", "d");
  static final ConfigKey<String> DEST_URL =
      DESTS.define(ConfigKey.required("base-url", ConfigType.STRING, "u"));
  static final ConfigKey<String> DEST_TOKEN =
      DESTS.define(ConfigKey.optional("auth-token", ConfigType.STRING, null, "t").secret());
  static final String SOURCE = KEYS.passThrough("debezium.source.", "engine");
  static final String PRODUCER = KEYS.passThrough("kafka.producer.", "producer");
  static final ConfigDef DEF = KEYS.build();

  private static ConfigValues read(Map<String, String> props, Map<String, String> env) {
    return DEF.read(ConfigSource.of(props, env));
  }

  private static ConfigException fails(Map<String, String> props, Map<String, String> env) {
    return assertThrows(ConfigException.class, () -> read(props, env));
  }

  @Test
  void shouldFailOnAnUnknownKeyNamingItAndSuggestingTheClosest() {
    ConfigException e =
        fails(Map.of("demo.db.jdbc-url", "jdbc:x", "demo.http.prot", "1"), Map.of());

    assertTrue(e.getMessage().contains("demo.http.prot: unknown key"), e.getMessage());
    assertTrue(e.getMessage().contains("did you mean demo.http.port?"), e.getMessage());
  }

  @Test
  void shouldFailOnAMissingRequiredKeyNamingIt() {
    ConfigException e = fails(Map.of(), Map.of());

    assertTrue(
        e.getMessage().contains("demo.db.jdbc-url: required key is missing"), e.getMessage());
  }

  @Test
  void shouldTreatAnEmptyValueAsNotSet() {
    ConfigException e = fails(Map.of("demo.db.jdbc-url", " "), Map.of());

    assertTrue(
        e.getMessage().contains("demo.db.jdbc-url: required key is missing"), e.getMessage());
  }

  @Test
  void shouldFailOnABadNumberNamingKeyAndValue() {
    ConfigException e =
        fails(Map.of("demo.db.jdbc-url", "jdbc:x", "demo.http.port", "80a"), Map.of());

    assertTrue(e.getMessage().contains("demo.http.port: invalid value '80a'"), e.getMessage());
  }

  @Test
  void shouldFailOnAValueTheValidatorRejects() {
    ConfigException e =
        fails(Map.of("demo.db.jdbc-url", "jdbc:x", "demo.http.port", "70000"), Map.of());

    assertTrue(e.getMessage().contains("demo.http.port: invalid value '70000'"), e.getMessage());
    assertTrue(e.getMessage().contains("between 0 and 65535"), e.getMessage());
  }

  @Test
  void shouldFailOnABadDurationAndBooleanNamingKeysAndValues() {
    ConfigException e =
        fails(
            Map.of("demo.db.jdbc-url", "jdbc:x", "demo.timeout", "30", "demo.enabled", "yes"),
            Map.of());

    assertEquals(2, e.problems().size(), e.getMessage());
    assertTrue(e.getMessage().contains("demo.timeout: invalid value '30'"), e.getMessage());
    assertTrue(e.getMessage().contains("demo.enabled: invalid value 'yes'"), e.getMessage());
  }

  @Test
  void shouldLetTheEnvironmentWinOverTheFile() {
    ConfigValues values =
        read(
            Map.of("demo.db.jdbc-url", "jdbc:file", "demo.http.port", "1000"),
            Map.of("HERALD_DEMO_HTTP_PORT", "2000", "HERALD_DEMO_DB_JDBC_URL", "jdbc:env"));

    assertEquals(2000, values.get(PORT));
    assertEquals("jdbc:env", values.get(URL));
    assertEquals("env HERALD_DEMO_HTTP_PORT", values.origin(PORT));
  }

  @Test
  void shouldTreatAnEmptyEnvironmentVariableAsNotSet() {
    ConfigValues values =
        read(
            Map.of(
                "demo.db.jdbc-url", "jdbc:file",
                "demo.http.port", "1000",
                "debezium.source.database.hostname", "file-host",
                "debezium.source.database.password", ""),
            Map.of("HERALD_DEMO_HTTP_PORT", "", "HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME", " "));

    assertEquals(1000, values.get(PORT));
    assertEquals(Map.of("database.hostname", "file-host"), values.passThrough(SOURCE));
  }

  @Test
  void shouldUseDefaultsForUnsetKeys() {
    ConfigValues values = read(Map.of("demo.db.jdbc-url", "jdbc:x"), Map.of());

    assertEquals(8080, values.get(PORT));
    assertEquals(Duration.ofSeconds(30), values.get(TIMEOUT));
    assertNull(values.get(PASSWORD));
    assertFalse(values.isSet(PORT));
  }

  @Test
  void shouldCollectPassThroughKeysFromFileAndEnvironmentWithThePrefixStripped() {
    ConfigValues values =
        read(
            Map.of(
                "demo.db.jdbc-url", "jdbc:x",
                "debezium.source.database.hostname", "file-host",
                "debezium.source.plugin.name", "pgoutput",
                "kafka.producer.acks", "all"),
            Map.of(
                "HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME", "env-host",
                "HERALD_DEBEZIUM_SOURCE_DATABASE_PORT", "5433"));

    assertEquals(
        Map.of("database.hostname", "env-host", "database.port", "5433", "plugin.name", "pgoutput"),
        values.passThrough(SOURCE));
    assertEquals(Map.of("acks", "all"), values.passThrough(PRODUCER));
  }

  @Test
  void shouldReadGroupInstancesFromFileAndEnvironment() {
    ConfigValues values =
        read(
            Map.of(
                "demo.db.jdbc-url", "jdbc:x",
                "demo.destinations.dest-a.base-url", "http://a"),
            Map.of(
                "HERALD_DEMO_DESTINATIONS_DEST_A_AUTH_TOKEN", "tok-a",
                "HERALD_DEMO_DESTINATIONS_DEST_B_BASE_URL", "http://b"));

    Map<String, ConfigValues> dests = values.group(DESTS);
    assertEquals(2, dests.size());
    assertEquals("tok-a", dests.get("dest-a").get(DEST_TOKEN));
    assertEquals("http://b", dests.get("dest-b").get(DEST_URL));
  }

  @Test
  void shouldFailOnAnUnknownGroupMemberAndAMissingRequiredMember() {
    ConfigException e =
        fails(
            Map.of(
                "demo.db.jdbc-url", "jdbc:x",
                "demo.destinations.dest-a.base-urll", "http://a",
                "demo.destinations.dest-b.auth-token", "t"),
            Map.of());

    assertTrue(
        e.getMessage().contains("demo.destinations.dest-a.base-urll: unknown key"), e.getMessage());
    assertTrue(
        e.getMessage().contains("demo.destinations.dest-b.base-url: required key is missing"),
        e.getMessage());
  }

  @Test
  void shouldFailOnAnUnknownEnvironmentVariableInTheProcessNamespace() {
    ConfigException e =
        fails(Map.of("demo.db.jdbc-url", "jdbc:x"), Map.of("HERALD_DEMO_HTTP_PROT", "1"));

    assertTrue(e.getMessage().contains("HERALD_DEMO_HTTP_PROT"), e.getMessage());
    assertTrue(e.getMessage().contains("did you mean HERALD_DEMO_HTTP_PORT?"), e.getMessage());
  }

  @Test
  void shouldIgnoreEnvironmentVariablesOfOtherProcesses() {
    ConfigValues values =
        read(
            Map.of("demo.db.jdbc-url", "jdbc:x"),
            Map.of("HERALD_WRITER_HTTP_PORT", "1", "PATH", "/bin"));

    assertEquals(8080, values.get(PORT));
  }

  @Test
  void shouldNeverShowSecretsInTheRenderedConfig() {
    ConfigValues values =
        read(
            Map.of(
                "demo.db.jdbc-url", "jdbc:postgresql://h/db?user=u&password=url-secret-1",
                "demo.db.password", "hunter2-secret",
                "demo.signing", "declared-secret-value",
                "demo.destinations.dest-a.base-url", "http://user:basic-secret@a",
                "demo.destinations.dest-a.auth-token", "dest-token-secret",
                "debezium.source.database.password", "dbz-secret",
                "kafka.producer.sasl.jaas.config", "org.Plain required password=\"jaas-secret\";"),
            Map.of());

    String rendered = values.effective().render();

    for (String secret :
        new String[] {
          "url-secret-1",
          "hunter2-secret",
          "declared-secret-value",
          "basic-secret",
          "dest-token-secret",
          "dbz-secret",
          "jaas-secret"
        }) {
      assertFalse(rendered.contains(secret), secret + " leaked:\n" + rendered);
    }
    assertTrue(rendered.contains("demo.db.password = ****"), rendered);
    assertTrue(rendered.contains("debezium.source.database.password = ****"), rendered);
    assertTrue(rendered.contains("kafka.producer.sasl.jaas.config = ****"), rendered);
    assertTrue(rendered.contains("demo.http.port = 8080  [default]"), rendered);
  }

  @Test
  void shouldNotShowASecretValueInAnErrorMessage() {
    ConfigDef.Builder keys = ConfigDef.builder("secretive");
    keys.define(
        ConfigKey.required("secretive.token-sha256", ConfigType.STRING, "h")
            .validatedBy(Validator.sha256Hex()));
    ConfigDef def = keys.build();

    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                def.read(
                    ConfigSource.of(Map.of("secretive.token-sha256", "my-clear-token"), Map.of())));

    assertTrue(
        e.getMessage().contains("secretive.token-sha256: invalid value ****"), e.getMessage());
    assertFalse(e.getMessage().contains("my-clear-token"), e.getMessage());
  }

  @Test
  void shouldLoadAPropertiesFileAndRejectAKeyDefinedTwice(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.properties");
    Files.writeString(good, "# comment\ndemo.db.jdbc-url = jdbc:x  \ndemo.timeout=500ms\n");
    Path twice = dir.resolve("twice.properties");
    Files.writeString(twice, "demo.db.jdbc-url=jdbc:x\ndemo.http.port=1\ndemo.http.port=2\n");

    ConfigValues values = DEF.read(ConfigSource.load(good, Map.of()));
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigSource.load(twice, Map.of()));

    assertEquals("jdbc:x", values.get(URL));
    assertEquals(Duration.ofMillis(500), values.get(TIMEOUT));
    assertTrue(e.getMessage().contains("demo.http.port: defined more than once"), e.getMessage());
  }

  @Test
  void shouldNameAMissingFile(@TempDir Path dir) {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigSource.load(dir.resolve("nope.properties"), Map.of()));

    assertTrue(e.getMessage().contains("nope.properties"), e.getMessage());
  }

  @Test
  void shouldRejectDefiningAKeyAfterTheDefinitionWasBuilt() {
    ConfigDef.Builder keys = ConfigDef.builder("late");
    keys.build();

    assertThrows(
        IllegalStateException.class,
        () -> keys.define(ConfigKey.optional("late.key", ConfigType.INT, 1, "too late")));
  }

  @Test
  void shouldMapKeysToEnvironmentNames() {
    assertEquals("HERALD_WRITER_DB_JDBC_URL", ConfigSource.envName("writer.db.jdbc-url"));
  }

  @Test
  void shouldRenderAMarkdownTableOfEveryKey() {
    String table = DEF.markdownTable();

    assertTrue(table.contains("| `demo.http.port` | int | 8080 | port |"), table);
    assertTrue(table.contains("`demo.destinations.<name>.base-url`"), table);
    assertTrue(table.contains("`debezium.source.*`"), table);
  }
}
