package io.herald.cli.purge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald purge} as separate OS processes against both schemas in one database, with the
 * shipped property files (writer outbox retention {@code keep}, batches of 2, one batch per run):
 * aged and fresh rows are planted in every table retention purges, and the dry run must count
 * exactly the aged ones and delete nothing, and {@code --apply} delete exactly those.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PurgeCliIT {

  /** Aged rows planted per table: what retention must find and delete. */
  private static final Map<String, Long> AGED =
      new LinkedHashMap<>(
          Map.of(
              "writer.outbox", 3L,
              "writer.inbox", 2L,
              "consumer.inbox", 4L,
              "consumer.delivery", 2L,
              "consumer.outbox", 1L));

  /** Every row planted per table: the aged ones, fresh ones, and an aged delivery still open. */
  private static final Map<String, Long> PLANTED =
      Map.of(
          "writer.outbox", 4L,
          "writer.inbox", 3L,
          "consumer.inbox", 5L,
          "consumer.delivery", 4L,
          "consumer.outbox", 2L);

  private StackContext stack;
  private Path configDir;
  private Path dir;

  @BeforeAll
  void migrateAndPlant(StackContext stack, @TempDir Path dir) throws Exception {
    this.stack = stack;
    this.dir = dir;
    CaptureSettings capture = new CaptureSettings(stack.publication(), stack.slot());
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(stack.dataSource(), HeraldSchema.CONSUMER, capture);
    configDir = configDir();
    // writer.outbox.keep-days=7: 3 rows of 8 days, 1 of 6.
    for (int days : new int[] {8, 8, 9, 6}) {
      update(
          "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id,"
              + " payload, occurred_at) VALUES (?, 'publication', 't1/a', 'PublicationRequested',"
              + " 't1', '{}'::jsonb, now() - ? * interval '1 day')",
          UUID.randomUUID(),
          days);
    }
    // writer.status.inbox-retention=7d: 2 of 8 days, 1 fresh.
    for (int days : new int[] {8, 10, 0}) {
      update(
          "INSERT INTO writer.inbox (message_id, handler, received_at)"
              + " VALUES (?, 'writer.status-view', now() - ? * interval '1 day')",
          UUID.randomUUID(),
          days);
    }
    // consumer.inbox.retention=14d: 4 of 15 days, 1 of 13.
    for (int days : new int[] {15, 15, 20, 30, 13}) {
      update(
          "INSERT INTO consumer.inbox (message_id, handler, received_at)"
              + " VALUES (?, 'consumer.delivery-intake', now() - ? * interval '1 day')",
          UUID.randomUUID(),
          days);
    }
    // consumer.delivery.retention=30d: PUBLISHED and ABANDONED of 31 days go; an old PENDING one
    // stays (not finished), and so does a PUBLISHED one of 29 days.
    plantDelivery("a-1", "PUBLISHED", 31);
    plantDelivery("a-2", "ABANDONED", 40);
    plantDelivery("a-3", "PENDING", 31);
    plantDelivery("a-4", "PUBLISHED", 29);
    // consumer.outbox.keep-days=7: 1 of 8 days, 1 of 1.
    for (int days : new int[] {8, 1}) {
      update(
          "INSERT INTO consumer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id,"
              + " payload, occurred_at) VALUES (?, 'delivery', 't1/a', 'PublicationPublished',"
              + " 't1', '{}'::jsonb, now() - ? * interval '1 day')",
          UUID.randomUUID(),
          days);
    }
  }

  @Test
  @Order(1)
  void shouldCountTheAgedRowsPerTableAndDeleteNothingOnADryRun() throws Exception {
    Result result = herald("purge", "--dry-run", "--json");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode report = Json.mapper().readTree(result.out());
    assertThat(report.path("applied").asBoolean(true)).isFalse();
    assertThat(rowsByTable(report)).isEqualTo(AGED);
    assertThat(report.path("rows").asLong()).isEqualTo(12);
    assertThat(cutoff(report, "writer.outbox"))
        .isBetween(
            Instant.now().minus(Duration.ofDays(7)).minusSeconds(120),
            Instant.now().minus(Duration.ofDays(7)));
    assertThat(cutoff(report, "consumer.delivery"))
        .isBetween(
            Instant.now().minus(Duration.ofDays(30)).minusSeconds(120),
            Instant.now().minus(Duration.ofDays(30)));
    for (Map.Entry<String, Long> table : PLANTED.entrySet()) {
      assertThat(count(table.getKey())).as(table.getKey()).isEqualTo(table.getValue());
    }

    Result human = herald("purge", "--dry-run");
    assertThat(human.exitCode()).as(human.toString()).isZero();
    assertThat(human.out())
        .containsPattern(
            "(?m)^writer\\.outbox +\\S+ +3 +occurred_at older than writer\\.outbox\\.keep-days=7$")
        .containsPattern("(?m)^consumer\\.delivery +\\S+ +2 +PUBLISHED, FAILED or ABANDONED")
        .endsWith(
            "dry run: 12 rows would be deleted; nothing deleted (--apply deletes them)"
                + System.lineSeparator());
  }

  @Test
  @Order(2)
  void shouldExitTwoWithoutExactlyOneMode() throws Exception {
    Result neither = herald("purge");
    assertThat(neither.exitCode()).as(neither.toString()).isEqualTo(2);

    Result both = herald("purge", "--dry-run", "--apply");
    assertThat(both.exitCode()).as(both.toString()).isEqualTo(2);
    assertThat(count("writer.outbox")).isEqualTo(4);
  }

  @Test
  @Order(3)
  void shouldDeleteExactlyTheAgedRowsWhenApplied() throws Exception {
    Result result = herald("purge", "--apply", "--json");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode report = Json.mapper().readTree(result.out());
    assertThat(report.path("applied").asBoolean()).isTrue();
    assertThat(rowsByTable(report)).isEqualTo(AGED);
    for (Map.Entry<String, Long> table : PLANTED.entrySet()) {
      assertThat(count(table.getKey()))
          .as(table.getKey())
          .isEqualTo(table.getValue() - AGED.get(table.getKey()));
    }
    assertThat(count("consumer.delivery WHERE article_id IN ('a-3', 'a-4')")).isEqualTo(2);

    Result again = herald("purge", "--dry-run");
    assertThat(again.exitCode()).as(again.toString()).isZero();
    assertThat(again.out()).contains("dry run: 0 rows would be deleted");
  }

  private static Map<String, Long> rowsByTable(JsonNode report) {
    Map<String, Long> rows = new LinkedHashMap<>();
    report.path("tables").forEach(t -> rows.put(t.path("table").asText(), t.path("rows").asLong()));
    return rows;
  }

  private static Instant cutoff(JsonNode report, String table) {
    for (JsonNode t : report.path("tables")) {
      if (t.path("table").asText().equals(table)) {
        return Instant.parse(t.path("cutoff").asText());
      }
    }
    throw new AssertionError("no " + table + " in " + report);
  }

  private Result herald(String... args) throws IOException, InterruptedException {
    String[] all = new String[args.length + 2];
    all[0] = "--config-dir";
    all[1] = configDir.toString();
    System.arraycopy(args, 0, all, 2, args.length);
    return HeraldProcess.run(Map.of(), all);
  }

  /** The shipped writer and consumer files on this class's database, writer outbox kept. */
  private Path configDir() throws IOException {
    Path configDir = Files.createDirectories(dir.resolve("config"));
    Properties writer = new Properties();
    ShippedConfig.of("writer").properties().forEach(writer::setProperty);
    writer.setProperty("writer.db.jdbc-url", stack.jdbcUrl());
    writer.setProperty("writer.db.user", stack.user());
    writer.setProperty("writer.db.password", stack.password());
    writer.setProperty("writer.outbox.retention", "keep");
    writer.setProperty("writer.outbox.keep-days", "7");
    writer.setProperty("writer.outbox.purge-batch-size", "2");
    writer.setProperty("writer.outbox.purge-max-batches", "1");
    writer.setProperty("writer.status.enabled", "true");
    writer.setProperty("writer.status.inbox-retention", "7d");
    store(writer, configDir.resolve("writer.properties"));
    Properties consumer = new Properties();
    ShippedConfig.of("consumer").properties().forEach(consumer::setProperty);
    consumer.setProperty("consumer.db.jdbc-url", stack.jdbcUrl());
    consumer.setProperty("consumer.db.user", stack.user());
    consumer.setProperty("consumer.db.password", stack.password());
    consumer.setProperty("consumer.inbox.retention", "14d");
    consumer.setProperty("consumer.delivery.retention", "30d");
    consumer.setProperty("consumer.outbox.retention", "keep");
    consumer.setProperty("consumer.outbox.keep-days", "7");
    consumer.setProperty("consumer.outbox.purge-batch-size", "2");
    store(consumer, configDir.resolve("consumer.properties"));
    return configDir;
  }

  private static void store(Properties properties, Path file) throws IOException {
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "PurgeCliIT");
    }
  }

  private void plantDelivery(String article, String state, int daysSinceUpdate)
      throws SQLException {
    update(
        "INSERT INTO consumer.delivery (id, job_id, message_id, tenant_id, article_id,"
            + " revision_id, destination, idempotency_key, payload_hash, content, state,"
            + " updated_at) VALUES (?, ?, ?, 't1', ?, 'r-1', 'dest-a', ?, 'h', '{}'::jsonb, ?,"
            + " now() - ? * interval '1 day')",
        UUID.randomUUID(),
        UUID.randomUUID(),
        UUID.randomUUID(),
        article,
        "key-" + article,
        state,
        daysSinceUpdate);
  }

  private long count(String tableAndCondition) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement("SELECT count(*) FROM " + tableAndCondition);
        ResultSet row = select.executeQuery()) {
      row.next();
      return row.getLong(1);
    }
  }

  private void update(String sql, Object... args) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setObject(i + 1, args[i]);
      }
      statement.executeUpdate();
    }
  }
}
