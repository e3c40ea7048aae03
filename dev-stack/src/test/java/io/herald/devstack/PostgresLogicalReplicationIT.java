package io.herald.devstack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

@HeraldIntegrationTest
class PostgresLogicalReplicationIT {

  private static final Duration STREAM_TIMEOUT = Duration.ofSeconds(30);

  @Test
  void shouldRunWithLogicalWalLevel(StackContext stack) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SHOW wal_level")) {
      rs.next();
      assertEquals("logical", rs.getString(1));
    }
    assertTrue(
        stack.stack().postgres().version().startsWith("17."),
        "PostgreSQL 17 expected, was " + stack.stack().postgres().version());
  }

  @Test
  void shouldStreamCommittedInsertOfPublishedTableOnlyThroughPgoutput(StackContext stack)
      throws Exception {
    try (Connection sql = stack.dataSource().getConnection();
        Statement statement = sql.createStatement()) {
      statement.execute("CREATE TABLE published (id int PRIMARY KEY, note text NOT NULL)");
      statement.execute("CREATE TABLE unpublished (id int PRIMARY KEY, note text NOT NULL)");
      statement.execute("CREATE PUBLICATION " + stack.publication() + " FOR TABLE published");
    }
    try (Connection replication = replicationConnection(stack)) {
      PGConnection pg = replication.unwrap(PGConnection.class);
      pg.getReplicationAPI()
          .createReplicationSlot()
          .logical()
          .withSlotName(stack.slot())
          .withOutputPlugin("pgoutput")
          .make();
      // Committed after the slot exists, the unpublished row first: its change would come first.
      try (Connection sql = stack.dataSource().getConnection();
          Statement statement = sql.createStatement()) {
        statement.execute("INSERT INTO unpublished VALUES (1, 'must-not-stream')");
        statement.execute("INSERT INTO published VALUES (1, 'streamed-row')");
      }
      try (PGReplicationStream stream =
          pg.getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(stack.slot())
              .withSlotOption("proto_version", "1")
              .withSlotOption("publication_names", stack.publication())
              .start()) {
        List<Insert> inserts = readInsertsUntil(stream, "published");
        assertEquals(1, inserts.size(), "inserts streamed: " + inserts);
        assertEquals("published", inserts.get(0).relation());
        assertEquals(List.of("1", "streamed-row"), inserts.get(0).values());
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

  /** Reads pgoutput messages until an insert of {@code relation} arrives; returns all inserts. */
  private static List<Insert> readInsertsUntil(PGReplicationStream stream, String relation)
      throws SQLException, InterruptedException {
    Map<Integer, String> relations = new HashMap<>();
    List<Insert> inserts = new ArrayList<>();
    long deadline = System.nanoTime() + STREAM_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      ByteBuffer message = stream.readPending();
      if (message == null) {
        Thread.sleep(10); // readPending does not block; read() would block past the deadline
        continue;
      }
      byte type = message.get();
      if (type == 'R') {
        int oid = message.getInt();
        readString(message); // namespace
        relations.put(oid, readString(message));
      } else if (type == 'I') {
        Insert insert = readInsert(message, relations);
        inserts.add(insert);
        if (insert.relation().equals(relation)) {
          return inserts;
        }
      }
    }
    throw new AssertionError("no insert of " + relation + " within " + STREAM_TIMEOUT);
  }

  /** pgoutput 'I': relation oid, 'N', then a tuple: column count, per column kind/length/text. */
  private static Insert readInsert(ByteBuffer message, Map<Integer, String> relations) {
    int oid = message.getInt();
    assertEquals('N', (char) message.get());
    int columns = message.getShort();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      byte kind = message.get();
      assertEquals('t', (char) kind, "text column expected");
      byte[] value = new byte[message.getInt()];
      message.get(value);
      values.add(new String(value, StandardCharsets.UTF_8));
    }
    String relation = relations.get(oid);
    assertFalse(relation == null, "insert for relation " + oid + " before its 'R' message");
    return new Insert(relation, values);
  }

  private static String readString(ByteBuffer buffer) {
    int start = buffer.position();
    while (buffer.get() != 0) {
      // advance to the terminating zero byte
    }
    byte[] bytes = new byte[buffer.position() - start - 1];
    buffer.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private record Insert(String relation, List<String> values) {}
}
