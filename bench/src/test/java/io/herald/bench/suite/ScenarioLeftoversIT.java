package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;

/**
 * What a finished scenario leaves is dropped whole: its databases, with the sessions still open on
 * them and the replication slots in them, a slot being read included; other databases stay.
 */
@HeraldIntegrationTest
class ScenarioLeftoversIT {

  @Test
  void shouldDropTheNamedDatabasesWithTheirSessionsAndSlotsAndLeaveTheOthers(StackContext context)
      throws Exception {
    PostgresServer postgres = context.stack().postgres();
    String read = context.database() + "_r";
    String idle = context.database() + "_i";
    postgres.createDatabase(read);
    postgres.createDatabase(idle);
    String readSlot = context.slot() + "_r";
    String idleSlot = context.slot() + "_i";
    createSlot(postgres, read, readSlot);
    createSlot(postgres, idle, idleSlot);
    Connection session = connect(postgres, idle, new Properties());
    Connection replication = startReading(postgres, read, readSlot);

    String said = ScenarioLeftovers.drop(postgres, Set.of(read, idle));

    assertThat(said).startsWith("dropped its 2 database(s), with 2 replication slot(s), in ");
    assertThat(ScenarioLeftovers.databases(postgres))
        .doesNotContain(read, idle)
        .contains(context.database(), "postgres");
    // The slot being read is gone, so its reader was ended: a streaming connection answers no query
    // to ask it directly.
    assertThat(slotCount(postgres, readSlot, idleSlot)).isZero();
    assertThat(session.isValid(2)).as("the session on the dropped database").isFalse();
    session.close();
    replication.close();
  }

  @Test
  void shouldRefuseANameNoScenarioCouldHaveCreated(StackContext context) {
    PostgresServer postgres = context.stack().postgres();

    assertThatThrownBy(() -> ScenarioLeftovers.drop(postgres, Set.of("postgres")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'postgres'");
    assertThatThrownBy(() -> ScenarioLeftovers.drop(postgres, Set.of("Not-Ours")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Not-Ours'");
    assertThat(ScenarioLeftovers.databases(postgres)).contains(context.database(), "postgres");
  }

  private static Connection connect(PostgresServer postgres, String database, Properties extra)
      throws Exception {
    Properties properties = new Properties();
    properties.putAll(extra);
    properties.setProperty("user", postgres.user());
    properties.setProperty("password", postgres.password());
    return DriverManager.getConnection(postgres.jdbcUrl(database), properties);
  }

  private static void createSlot(PostgresServer postgres, String database, String slot)
      throws Exception {
    try (Connection connection = connect(postgres, database, new Properties());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE PUBLICATION leftovers FOR ALL TABLES");
      try (PreparedStatement create =
          connection.prepareStatement("SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
        create.setString(1, slot);
        create.executeQuery().close();
      }
    }
  }

  /** A replication connection streaming from {@code slot}, which makes the slot active. */
  private static Connection startReading(PostgresServer postgres, String database, String slot)
      throws Exception {
    Properties properties = new Properties();
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
    PGProperty.REPLICATION.set(properties, "database");
    PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
    Connection connection = connect(postgres, database, properties);
    connection
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(slot)
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", "leftovers")
        .start();
    return connection;
  }

  private static int slotCount(PostgresServer postgres, String... slots) throws Exception {
    try (Connection connection = connect(postgres, "postgres", new Properties());
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ANY (?)")) {
      statement.setArray(1, connection.createArrayOf("text", slots));
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }
}
