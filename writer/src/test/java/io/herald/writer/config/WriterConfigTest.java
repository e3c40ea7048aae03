package io.herald.writer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigException;
import io.herald.config.ConfigSource;
import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
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

    assertEquals(8080, config.httpPort());
    assertEquals(1L << 20, config.httpRequestMaxBytes());
    assertEquals(Duration.ofSeconds(30), config.httpReadTimeout());
    assertEquals("jdbc:postgresql://localhost:5432/herald", config.database().jdbcUrl());
    assertEquals(WriterConfig.OutboxRetention.DELETE_IMMEDIATELY, config.outboxRetention());
    assertEquals(8081, config.opsPort());
    assertEquals("herald_outbox", config.capturePublication());
    assertEquals(2, config.tenantTokenHashes().size());
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

    assertEquals(9090, config.httpPort());
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
  void shouldAcceptDeleteImmediatelyRetention() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("writer.outbox.retention", "delete-immediately");

    assertEquals(
        WriterConfig.OutboxRetention.DELETE_IMMEDIATELY,
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
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    SHIPPED.assertDocsTableMatches(WriterConfig.definition());
  }
}
