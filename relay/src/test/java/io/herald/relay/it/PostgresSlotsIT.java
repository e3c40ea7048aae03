package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.slot.PostgresSlots;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * {@link PostgresSlots#endReader()} against real walsenders: it ends the session reading its own
 * slot and no other.
 */
@HeraldIntegrationTest
class PostgresSlotsIT {

  @BeforeAll
  static void createPublicationAndSlots(StackContext context) throws SQLException {
    try (Connection admin = admin(context);
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE TABLE slots_probe (id int PRIMARY KEY)");
      statement.execute("CREATE PUBLICATION " + context.publication() + " FOR TABLE slots_probe");
      for (String slot : new String[] {ours(context), other(context), idle(context)}) {
        statement.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      }
    }
  }

  private static String ours(StackContext context) {
    return context.slot() + "_ours";
  }

  private static String other(StackContext context) {
    return context.slot() + "_other";
  }

  private static String idle(StackContext context) {
    return context.slot() + "_idle";
  }

  private static Connection admin(StackContext context) throws SQLException {
    return DriverManager.getConnection(context.jdbcUrl(), context.user(), context.password());
  }

  private static Connection replication(StackContext context) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", context.user());
    properties.setProperty("password", context.password());
    properties.setProperty("replication", "database");
    properties.setProperty("preferQueryMode", "simple");
    properties.setProperty("assumeMinServerVersion", "10");
    return DriverManager.getConnection(context.jdbcUrl(), properties);
  }

  private static PGReplicationStream stream(Connection connection, String slot, StackContext c)
      throws SQLException {
    return connection
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(slot)
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", c.publication())
        .withStatusInterval(10, TimeUnit.SECONDS)
        .start();
  }

  /** The process reading the slot, or empty when it is inactive. */
  private static Optional<Integer> reader(StackContext context, String slot) throws SQLException {
    try (Connection admin = admin(context);
        PreparedStatement statement =
            admin.prepareStatement(
                "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?")) {
      statement.setString(1, slot);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        int pid = rows.getInt(1);
        return rows.wasNull() ? Optional.empty() : Optional.of(pid);
      }
    }
  }

  @Test
  void shouldEndTheSessionReadingItsSlotAndLeaveOtherSlotsReaders(StackContext context)
      throws Exception {
    // The stream on our slot is not closed by itself: its session is the one ended, and closing a
    // stream ends its copy on the server. Closing its connection is enough.
    try (Connection oursConnection = replication(context);
        Connection otherConnection = replication(context);
        PGReplicationStream otherStream = stream(otherConnection, other(context), context)) {
      stream(oursConnection, ours(context), context);
      Optional<Integer> oursReader = reader(context, ours(context));
      Optional<Integer> otherReader = reader(context, other(context));
      assertThat(oursReader).isPresent();
      assertThat(otherReader).isPresent();

      Optional<Integer> ended =
          new PostgresSlots(context.dataSource(), ours(context), Json.mapper()).endReader();
      Optional<Integer> none =
          new PostgresSlots(context.dataSource(), idle(context), Json.mapper()).endReader();

      assertThat(ended).isEqualTo(oursReader);
      assertThat(none).isEmpty();
      Awaitility.await("the ended walsender lets go of its slot")
          .atMost(Duration.ofSeconds(30))
          .until(() -> reader(context, ours(context)).isEmpty());
      assertThat(reader(context, other(context)))
          .as("the other slot's reader")
          .isEqualTo(otherReader);
    }
  }
}
