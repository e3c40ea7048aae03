package io.herald.cli.slot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald slot status} as a separate OS process against a real PostgreSQL slot, configured by
 * the shipped {@code relay.properties} with this class's database and slot.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlotStatusCliIT {

  private StackContext stack;
  @TempDir Path dir;

  @BeforeAll
  void createSlotAndWriteWal(StackContext stack) throws SQLException {
    this.stack = stack;
    try (Connection connection = stack.dataSource().getConnection()) {
      try (PreparedStatement create =
          connection.prepareStatement("SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
        create.setString(1, stack.slot());
        create.execute();
      }
      // WAL after the slot's position, which nobody confirms: the slot lags.
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE cli_wal (n int)");
        statement.execute("INSERT INTO cli_wal SELECT generate_series(1, 1000)");
      }
    }
  }

  @Test
  void shouldReportTheSlotAndExitZeroWhenItsLagIsWithinTheWarning() throws Exception {
    Result result =
        HeraldProcess.run(
            "--config-dir", relayConfigDir(stack.slot(), 0).toString(), "slot", "status");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .containsPattern("(?m)^slot +" + stack.slot() + "$")
        .containsPattern("(?m)^database +" + stack.database() + "$")
        .containsPattern("(?m)^plugin +pgoutput$")
        .containsPattern("(?m)^active +false$")
        .containsPattern("(?m)^active_pid +-$")
        .containsPattern("(?m)^confirmed_flush_lsn +[0-9A-F]+/[0-9A-F]+$")
        .containsPattern("(?m)^restart_lsn +[0-9A-F]+/[0-9A-F]+$")
        .containsPattern("(?m)^wal_retained_bytes +[1-9][0-9]*$")
        .containsPattern("(?m)^lag_bytes +[1-9][0-9]*$")
        .containsPattern("(?m)^lag_warn_bytes +1073741824$")
        // The build's server has never been promoted: its first timeline.
        .containsPattern("(?m)^timeline +1$")
        .contains("OK: lag ");
  }

  @Test
  void shouldPrintTheStatusAsJson() throws Exception {
    Result result =
        HeraldProcess.run(
            "slot", "status", "--json", "--config-dir", relayConfigDir(stack.slot(), 1).toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode status = Json.mapper().readTree(result.out());
    assertThat(status.path("slot").asText()).isEqualTo(stack.slot());
    assertThat(status.path("exists").asBoolean()).isTrue();
    assertThat(status.path("plugin").asText()).isEqualTo("pgoutput");
    assertThat(status.path("active").asBoolean()).isFalse();
    assertThat(status.path("walRetainedBytes").asLong()).isPositive();
    assertThat(status.path("lagBytes").asLong()).isPositive();
    assertThat(status.path("lagWarnBytes").asLong()).isEqualTo(1L << 30);
    assertThat(status.path("lagOverWarning").asBoolean()).isFalse();
    // The test stack runs PostgreSQL 17: the columns it added are read, not left null.
    assertThat(status.path("failover").isBoolean()).as(status.toString()).isTrue();
    assertThat(status.path("synced").asBoolean(true)).isFalse();
    assertThat(status.path("timeline").asLong()).isEqualTo(1);
    assertThat(status.path("invalidationReason").isNull()).isTrue();
    assertThat(status.has("confirmedFlushLsn")).isTrue();
    assertThat(status.has("activePid")).isTrue();
  }

  @Test
  void shouldExitOneWhenTheLagIsOverTheWarningSetFromTheEnvironment() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of("HERALD_RELAY_SLOT_LAG_WARN_BYTES", "1"),
            "--config-dir",
            relayConfigDir(stack.slot(), 2).toString(),
            "slot",
            "status");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.out())
        .containsPattern("VIOLATION: lag [0-9]+ bytes is over relay.slot.lag-warn-bytes=1");
  }

  @Test
  void shouldExitOneWhenTheSlotIsMissing() throws Exception {
    Result result =
        HeraldProcess.run(
            "--config-dir", relayConfigDir("no_such_slot", 3).toString(), "slot", "status");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.out())
        .contains(
            "VIOLATION: replication slot 'no_such_slot' does not exist in database '"
                + stack.database()
                + "'");

    Result json =
        HeraldProcess.run(
            "--config-dir",
            relayConfigDir("no_such_slot", 4).toString(),
            "slot",
            "status",
            "--json");
    assertThat(json.exitCode()).as(json.toString()).isEqualTo(1);
    assertThat(Json.mapper().readTree(json.out()).path("exists").asBoolean(true)).isFalse();
  }

  @Test
  void shouldExitThreeWhenTheDatabaseIsUnreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path configDir = relayConfigDir(stack.slot(), 5);
    Result result =
        HeraldProcess.run(
            Map.of("HERALD_DEBEZIUM_SOURCE_DATABASE_PORT", Integer.toString(port)),
            "--config-dir",
            configDir.toString(),
            "slot",
            "status");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
    assertThat(result.err()).contains("cannot read slot").contains("SQLState 08");
  }

  /** The shipped relay.properties pointed at this class's database and {@code slot}. */
  private Path relayConfigDir(String slot, int n) throws IOException {
    Path configDir = Files.createDirectories(dir.resolve("config-" + n));
    PostgresServer postgres = stack.stack().postgres();
    Properties properties = new Properties();
    ShippedConfig.of("relay").properties().forEach(properties::setProperty);
    properties.setProperty("relay.kafka.bootstrap-servers", stack.bootstrapServers());
    properties.setProperty("debezium.source.database.hostname", postgres.host());
    properties.setProperty("debezium.source.database.port", Integer.toString(postgres.port()));
    properties.setProperty("debezium.source.database.dbname", stack.database());
    properties.setProperty("debezium.source.database.user", stack.user());
    properties.setProperty("debezium.source.database.password", stack.password());
    properties.setProperty("debezium.source.slot.name", slot);
    properties.setProperty("debezium.source.publication.name", stack.publication());
    try (Writer writer =
        Files.newBufferedWriter(configDir.resolve("relay.properties"), StandardCharsets.UTF_8)) {
      properties.store(writer, "SlotStatusCliIT");
    }
    return configDir;
  }
}
