package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.engine.IdleWaitSocketFactory;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * The idle-wait socket under the PostgreSQL driver's own replication stream, as Debezium reads it
 * ({@code readPending}, pgoutput): a quiet stream's read waits for the next message instead of
 * returning at once, and still returns when nothing comes.
 */
@HeraldIntegrationTest
class IdleWaitStreamIT {

  private static final ScheduledExecutorService later =
      Executors.newSingleThreadScheduledExecutor();

  @BeforeAll
  static void createTableAndSlot(StackContext context) throws SQLException {
    try (Connection admin = admin(context);
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE TABLE idle_wait_probe (id int PRIMARY KEY)");
      statement.execute(
          "CREATE PUBLICATION " + context.publication() + " FOR TABLE idle_wait_probe");
      statement.execute(
          "SELECT pg_create_logical_replication_slot('" + context.slot() + "', 'pgoutput')");
    }
  }

  @AfterAll
  static void stop() {
    later.shutdownNow();
  }

  private static Connection admin(StackContext context) throws SQLException {
    return DriverManager.getConnection(context.jdbcUrl(), context.user(), context.password());
  }

  private static Connection replication(StackContext context, String idleWait) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", context.user());
    properties.setProperty("password", context.password());
    properties.setProperty("replication", "database");
    properties.setProperty("preferQueryMode", "simple");
    properties.setProperty("assumeMinServerVersion", "10");
    properties.setProperty(
        IdleWaitSocketFactory.FACTORY_PROPERTY, IdleWaitSocketFactory.class.getName());
    properties.setProperty(IdleWaitSocketFactory.ARGUMENT_PROPERTY, idleWait);
    return DriverManager.getConnection(context.jdbcUrl(), properties);
  }

  private static PGReplicationStream stream(Connection connection, StackContext context)
      throws SQLException {
    return connection
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(context.slot())
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", context.publication())
        .withStatusInterval(10, TimeUnit.SECONDS)
        .start();
  }

  @Test
  void shouldReturnARowCommittedWhileTheQuietStreamsReadWaits(StackContext context)
      throws Exception {
    try (Connection connection = replication(context, "20000,0");
        PGReplicationStream stream = stream(connection, context)) {
      // Committed 300 ms after the read starts: a 1 ms peek would have returned null long before.
      CompletableFuture<Void> insert = new CompletableFuture<>();
      later.schedule(
          () -> {
            try (Connection writer = admin(context);
                Statement statement = writer.createStatement()) {
              statement.execute("INSERT INTO idle_wait_probe VALUES (1)");
              insert.complete(null);
            } catch (SQLException e) {
              insert.completeExceptionally(e);
            }
          },
          300,
          TimeUnit.MILLISECONDS);

      ByteBuffer message = stream.readPending();

      insert.get(10, TimeUnit.SECONDS);
      assertThat(message).as("the message read by the one waiting readPending call").isNotNull();
      assertThat((char) message.get(message.position())).as("pgoutput BEGIN").isEqualTo('B');
    }
  }

  @Test
  void shouldReturnNothingFromAQuietReadAfterTheIdleWait(StackContext context) throws Exception {
    try (Connection connection = replication(context, "200,0");
        PGReplicationStream stream = stream(connection, context)) {
      // Skip whatever an earlier test left unread in the slot; then the stream is quiet.
      ByteBuffer message;
      do {
        message = stream.readPending();
        if (message != null) {
          stream.setFlushedLSN(stream.getLastReceiveLSN());
        }
      } while (message != null);

      assertThat(stream.readPending()).isNull();
    }
  }
}
