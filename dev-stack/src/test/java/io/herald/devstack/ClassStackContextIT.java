package io.herald.devstack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

class ClassStackContextIT {

  @Test
  void shouldDropTheClassDatabaseSlotsWhenClosedEvenWhileAReaderHoldsOne() throws Exception {
    ClassStackContext context =
        ClassStackContext.create(HeraldStack.shared(), ClassStackContextIT.class);
    try (Connection sql = context.dataSource().getConnection();
        Statement statement = sql.createStatement()) {
      statement.execute("CREATE TABLE t (id int PRIMARY KEY)");
      statement.execute("CREATE PUBLICATION " + context.publication() + " FOR TABLE t");
      statement.execute(
          "SELECT pg_create_logical_replication_slot('idle_" + context.slot() + "', 'pgoutput')");
    }
    Connection replication = replicationConnection(context);
    PGConnection pg = replication.unwrap(PGConnection.class);
    pg.getReplicationAPI()
        .createReplicationSlot()
        .logical()
        .withSlotName(context.slot())
        .withOutputPlugin("pgoutput")
        .make();
    PGReplicationStream reader =
        pg.getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(context.slot())
            .withSlotOption("proto_version", "1")
            .withSlotOption("publication_names", context.publication())
            .start();
    assertEquals(2, slotsOf(context));

    context.close();

    assertEquals(0, slotsOf(context));
    // close() ended the reader's session on the server side: the stream is dead.
    assertThrows(SQLException.class, reader::close);
    // A polite close would write to the dead socket; abort just drops it.
    replication.abort(Runnable::run);
  }

  private static int slotsOf(ClassStackContext context) throws SQLException {
    try (Connection connection = context.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_replication_slots WHERE database = ?")) {
      statement.setString(1, context.database());
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static Connection replicationConnection(StackContext stack) throws SQLException {
    Properties properties = new Properties();
    PGProperty.USER.set(properties, stack.user());
    PGProperty.PASSWORD.set(properties, stack.password());
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
    PGProperty.REPLICATION.set(properties, "database");
    PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
    return DriverManager.getConnection(stack.jdbcUrl(), properties);
  }
}
