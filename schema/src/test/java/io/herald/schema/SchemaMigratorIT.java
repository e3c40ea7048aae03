package io.herald.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

@HeraldIntegrationTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchemaMigratorIT {

  private static StackContext stack;
  private static CaptureSettings capture;

  @BeforeAll
  static void setUp(StackContext context) {
    stack = context;
    capture = new CaptureSettings(context.publication(), context.slot());
  }

  @Test
  @Order(1)
  void shouldApplyEveryMigrationOnAnEmptyDatabaseAndNothingOnTheSecondRun() {
    DataSource dataSource = stack.dataSource();

    assertThat(SchemaMigrator.migrate(dataSource, HeraldSchema.WRITER, capture))
        .isGreaterThanOrEqualTo(4);
    assertThat(SchemaMigrator.migrate(dataSource, HeraldSchema.CONSUMER, capture))
        .isGreaterThanOrEqualTo(4);

    assertThat(SchemaMigrator.migrate(dataSource, HeraldSchema.WRITER, capture)).isZero();
    assertThat(SchemaMigrator.migrate(dataSource, HeraldSchema.CONSUMER, capture)).isZero();
  }

  @Test
  @Order(2)
  void shouldCreateTheNamedUniqueIndexOnTheBusinessKey() throws SQLException {
    String definition =
        queryString(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'writer'"
                + " AND indexname = 'ux_publication_job_identity'");

    assertThat(definition)
        .startsWith("CREATE UNIQUE INDEX ux_publication_job_identity")
        .endsWith("(tenant_id, article_id, revision_id, destination)");
  }

  @Test
  @Order(2)
  void shouldRejectASecondJobWithTheSameBusinessKey() throws SQLException {
    try (Connection connection = stack.dataSource().getConnection()) {
      String insert =
          "INSERT INTO writer.publication_job (id, tenant_id, article_id, revision_id, destination,"
              + " idempotency_key, payload_hash, content) VALUES (?, 't', 'a', 'r', 'd', ?, ?, '{}')"
              + " ON CONFLICT DO NOTHING";
      String hex = "0".repeat(64);
      int first;
      int second;
      try (PreparedStatement statement = connection.prepareStatement(insert)) {
        statement.setObject(1, UUID.randomUUID());
        statement.setString(2, hex);
        statement.setString(3, hex);
        first = statement.executeUpdate();
        statement.setObject(1, UUID.randomUUID());
        second = statement.executeUpdate();
      }
      assertThat(first).isEqualTo(1);
      assertThat(second).isZero();
    }
  }

  @Test
  @Order(2)
  void shouldPublishBothOutboxesAndTheHeartbeatTableOnly() throws SQLException {
    List<String> tables = new ArrayList<>();
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT schemaname || '.' || tablename FROM pg_publication_tables"
                    + " WHERE pubname = ? ORDER BY 1")) {
      query.setString(1, capture.publication());
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          tables.add(rows.getString(1));
        }
      }
    }

    assertThat(tables)
        .containsExactly("consumer.outbox", "herald_relay.heartbeat", "writer.outbox");
  }

  @Test
  @Order(2)
  void shouldPublishInsertsAndUpdatesButNoDeletes() throws SQLException {
    String flags =
        queryString(
            "SELECT concat_ws(',', pubinsert, pubupdate, pubdelete, pubtruncate) FROM pg_publication"
                + " WHERE pubname = ?",
            capture.publication());

    // insert, update (the heartbeat upsert), no delete (retention purges), no truncate
    assertThat(flags).isEqualTo("t,t,f,f");
  }

  @Test
  @Order(2)
  void shouldStreamEveryOutboxColumnTheRelayRoutesAndNotOccurredAt() throws SQLException {
    for (String schema : List.of("writer", "consumer")) {
      String columns =
          queryString(
              "SELECT array_to_string(attnames, ',') FROM pg_publication_tables"
                  + " WHERE pubname = ? AND schemaname = ? AND tablename = 'outbox'",
              capture.publication(),
              schema);

      assertThat(columns.split(","))
          .as(schema + ".outbox")
          .containsExactlyInAnyOrder(
              "id",
              "aggregate_type",
              "aggregate_id",
              "event_type",
              "tenant_id",
              "payload",
              "trace_parent",
              "trace_state");
    }
  }

  @Test
  @Order(3)
  void shouldRetainOutboxRowsCommittedBeforeAnyRelayRan() throws SQLException {
    UUID eventId = UUID.randomUUID();
    insertOutboxRow(eventId);

    List<String> streamed = peekInsertedOutboxIds(capture.slot(), capture.publication());

    assertThat(streamed).contains(eventId.toString());
  }

  @Test
  @Order(4)
  void shouldGiveEveryCopiedOutboxRowItsOwnWalPosition() throws Exception {
    // Control: a table without the guard trigger, where COPY shares WAL positions between rows;
    // it shows this test would notice the guard missing.
    try (Connection connection = stack.dataSource().getConnection();
        Statement ddl = connection.createStatement()) {
      ddl.execute("CREATE TABLE public.unguarded (LIKE writer.outbox INCLUDING DEFAULTS)");
      ddl.execute("CREATE PUBLICATION unguarded_pub FOR TABLE public.unguarded");
      ddl.execute(
          "SELECT pg_create_logical_replication_slot('" + capture.slot() + "_ctl', 'pgoutput')");
    }
    int rows = 200;
    copyOutboxRows("writer.outbox", rows);
    copyOutboxRows("public.unguarded", rows);

    List<String> guarded = peekInsertLsns(capture.slot(), capture.publication());
    List<String> unguarded = peekInsertLsns(capture.slot() + "_ctl", "unguarded_pub");

    assertThat(new HashSet<>(unguarded)).hasSizeLessThan(rows);
    assertThat(guarded).hasSizeGreaterThanOrEqualTo(rows);
    assertThat(new HashSet<>(guarded)).hasSize(guarded.size());
    try (Connection connection = stack.dataSource().getConnection();
        Statement ddl = connection.createStatement()) {
      ddl.execute("SELECT pg_drop_replication_slot('" + capture.slot() + "_ctl')");
    }
  }

  @Test
  @Order(5)
  void shouldRefuseASlotNameThatBelongsToAnotherDatabase() throws SQLException {
    String other = stack.database() + "_other";
    stack.stack().postgres().createDatabase(other);
    org.postgresql.ds.PGSimpleDataSource otherDataSource =
        new org.postgresql.ds.PGSimpleDataSource();
    otherDataSource.setUrl(stack.stack().postgres().jdbcUrl(other));
    otherDataSource.setUser(stack.user());
    otherDataSource.setPassword(stack.password());

    assertThatThrownBy(() -> SchemaMigrator.migrate(otherDataSource, HeraldSchema.WRITER, capture))
        .isInstanceOf(FlywayException.class)
        .hasStackTraceContaining("Replication slot '" + capture.slot() + "' already exists")
        .hasStackTraceContaining("in database " + stack.database());
  }

  private static void insertOutboxRow(UUID id) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id,"
                    + " payload) VALUES (?, 'publication', 't/a/d', 'PublicationRequested', 't',"
                    + " '{}')")) {
      insert.setObject(1, id);
      insert.executeUpdate();
    }
  }

  private static void copyOutboxRows(String table, int rows) throws Exception {
    StringBuilder data = new StringBuilder();
    for (int i = 0; i < rows; i++) {
      data.append(UUID.randomUUID()).append("\tpublication\tt/a/d\tPublicationRequested\tt\t{}\n");
    }
    try (Connection connection = stack.dataSource().getConnection()) {
      CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
      copy.copyIn(
          "COPY "
              + table
              + " (id, aggregate_type, aggregate_id, event_type, tenant_id, payload) FROM STDIN",
          new java.io.StringReader(data.toString()));
    }
  }

  /** The WAL positions of the pgoutput Insert messages the slot would stream, oldest first. */
  private static List<String> peekInsertLsns(String slot, String publication) throws SQLException {
    List<String> lsns = new ArrayList<>();
    for (String[] message : peek(slot, publication)) {
      if (message[1].equals("I")) {
        lsns.add(message[0]);
      }
    }
    return lsns;
  }

  private static List<String> peekInsertedOutboxIds(String slot, String publication)
      throws SQLException {
    List<String> ids = new ArrayList<>();
    for (String[] message : peek(slot, publication)) {
      if (message[1].equals("I")) {
        ids.add(message[2]);
      }
    }
    return ids;
  }

  /**
   * Reads the slot's pending changes without consuming them: for each message its LSN, its pgoutput
   * type byte, and for inserts the first column's text value (the outbox id).
   */
  private static List<String[]> peek(String slot, String publication) throws SQLException {
    List<String[]> messages = new ArrayList<>();
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT lsn::text, data FROM pg_logical_slot_peek_binary_changes(?, NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', ?)")) {
      query.setString(1, slot);
      query.setString(2, publication);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          byte[] data = rows.getBytes(2);
          String type = String.valueOf((char) data[0]);
          messages.add(
              new String[] {rows.getString(1), type, type.equals("I") ? firstColumn(data) : ""});
        }
      }
    }
    return messages;
  }

  /**
   * pgoutput Insert: 'I', relation oid (4), 'N', column count (2), then per column kind + value.
   */
  private static String firstColumn(byte[] data) {
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(data);
    buffer.position(1 + 4 + 1 + 2);
    byte kind = buffer.get();
    if (kind != 't') {
      return "";
    }
    int length = buffer.getInt();
    byte[] value = new byte[length];
    buffer.get(value);
    return new String(value, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String queryString(String sql, String... parameters) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }
}
