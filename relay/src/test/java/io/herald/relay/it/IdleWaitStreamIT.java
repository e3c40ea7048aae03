package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.debezium.IdleWaitSocketFactory;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * The idle-wait socket under the PostgreSQL driver's own replication stream, as Debezium reads it
 * ({@code readPending}, pgoutput), in plain text and under TLS (where the driver layers its {@code
 * SSLSocket} over the relay's socket): a quiet stream's read waits for the next message instead of
 * returning at once, still returns when nothing comes, and a stream that has just carried data
 * keeps the driver's 1 ms peek.
 */
@HeraldIntegrationTest
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class IdleWaitStreamIT {

  private static final ScheduledExecutorService later =
      Executors.newSingleThreadScheduledExecutor();
  private static final AtomicInteger rows = new AtomicInteger();
  private static final AtomicInteger slots = new AtomicInteger();
  private static Optional<ServerTls> tls = Optional.empty();

  @BeforeAll
  static void createTableAndTurnOnTls(StackContext context) throws Exception {
    try (Connection admin = admin(context);
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE TABLE idle_wait_probe (id int PRIMARY KEY)");
      statement.execute(
          "CREATE PUBLICATION " + context.publication() + " FOR TABLE idle_wait_probe");
    }
    tls = ServerTls.enable(context);
  }

  @AfterAll
  static void stop() throws Exception {
    later.shutdownNow();
    if (tls.isPresent()) {
      tls.get().close();
    }
  }

  private static Connection admin(StackContext context) throws SQLException {
    return DriverManager.getConnection(context.jdbcUrl(), context.user(), context.password());
  }

  /**
   * A replication connection through the idle-wait socket, checked to be encrypted or not as asked,
   * with a fresh slot so that no earlier test's changes are pending on it.
   */
  private static Connection replication(StackContext context, String sslMode, String idleWait)
      throws SQLException {
    assumeTrue(
        sslMode.equals("disable") || tls.isPresent(),
        "TLS needs the server's data directory on this machine");
    Properties properties = new Properties();
    properties.setProperty("user", context.user());
    properties.setProperty("password", context.password());
    properties.setProperty("replication", "database");
    properties.setProperty("preferQueryMode", "simple");
    properties.setProperty("assumeMinServerVersion", "10");
    properties.setProperty("sslmode", sslMode);
    properties.setProperty(
        IdleWaitSocketFactory.FACTORY_PROPERTY, IdleWaitSocketFactory.class.getName());
    properties.setProperty(IdleWaitSocketFactory.ARGUMENT_PROPERTY, idleWait);
    slots.incrementAndGet();
    Connection connection = DriverManager.getConnection(context.jdbcUrl(), properties);
    try (Statement statement = connection.createStatement();
        ResultSet encrypted =
            statement.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
      encrypted.next();
      assertThat(encrypted.getBoolean(1)).as("encrypted").isEqualTo(!sslMode.equals("disable"));
      statement.execute(
          "SELECT pg_create_logical_replication_slot('" + slotName(context) + "', 'pgoutput')");
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
    return connection;
  }

  /** The slot of the latest {@link #replication} connection. */
  private static String slotName(StackContext context) {
    return context.slot() + "_" + slots.get();
  }

  private static PGReplicationStream stream(Connection connection, StackContext context)
      throws SQLException {
    return connection
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(slotName(context))
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", context.publication())
        .withStatusInterval(10, TimeUnit.SECONDS)
        .start();
  }

  /** Inserts a row {@code delayMillis} from now; the future fails if the insert does. */
  private static CompletableFuture<Void> insertLater(StackContext context, long delayMillis) {
    CompletableFuture<Void> insert = new CompletableFuture<>();
    later.schedule(
        () -> {
          try (Connection writer = admin(context);
              Statement statement = writer.createStatement()) {
            statement.execute(
                "INSERT INTO idle_wait_probe VALUES (" + rows.incrementAndGet() + ")");
            insert.complete(null);
          } catch (SQLException e) {
            insert.completeExceptionally(e);
          }
        },
        delayMillis,
        TimeUnit.MILLISECONDS);
    return insert;
  }

  private static char type(ByteBuffer message) {
    return (char) message.get(message.position());
  }

  @ParameterizedTest(name = "sslmode={0}")
  @ValueSource(strings = {"disable", "require"})
  void shouldReturnARowCommittedWhileTheQuietStreamsReadWaits(String sslMode, StackContext context)
      throws Exception {
    try (Connection connection = replication(context, sslMode, "20000,0");
        PGReplicationStream stream = stream(connection, context)) {
      // Committed 300 ms after the read starts: a 1 ms peek would have returned null long before.
      CompletableFuture<Void> insert = insertLater(context, 300);

      ByteBuffer message = stream.readPending();

      insert.get(10, TimeUnit.SECONDS);
      assertThat(message).as("the message read by the one waiting readPending call").isNotNull();
      assertThat(type(message)).as("pgoutput BEGIN").isEqualTo('B');
    }
  }

  @ParameterizedTest(name = "sslmode={0}")
  @ValueSource(strings = {"disable", "require"})
  void shouldReturnNothingFromAQuietReadAfterTheIdleWait(String sslMode, StackContext context)
      throws Exception {
    try (Connection connection = replication(context, sslMode, "200,0");
        PGReplicationStream stream = stream(connection, context)) {

      assertThat(stream.readPending()).isNull();
    }
  }

  @ParameterizedTest(name = "sslmode={0}")
  @ValueSource(strings = {"disable", "require"})
  void shouldKeepTheDriversShortPeekRightAfterData(String sslMode, StackContext context)
      throws Exception {
    try (Connection connection = replication(context, sslMode, "20000,1500");
        PGReplicationStream stream = stream(connection, context)) {
      // The stream is quiet for longer than idle-after before this row arrives, so the socket's
      // own start no longer counts as recent data: only the row's bytes can keep the peek short.
      CompletableFuture<Void> first = insertLater(context, 2_000);
      ByteBuffer begin;
      do {
        begin = stream.readPending();
      } while (begin == null);
      first.get(10, TimeUnit.SECONDS);
      assertThat(type(begin)).as("pgoutput BEGIN").isEqualTo('B');
      ByteBuffer message;
      do {
        message = stream.read();
      } while (type(message) != 'C');

      // Committed 300 ms from now: a read that waited would return its BEGIN instead.
      CompletableFuture<Void> second = insertLater(context, 300);

      assertThat(stream.readPending()).as("a 1 ms peek right after a commit").isNull();
      second.get(10, TimeUnit.SECONDS);
      assertThat(type(stream.read())).as("the second row's BEGIN").isEqualTo('B');
    }
  }
}
