package io.herald.relay.it;

import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * Writes outbox rows the way the writer and consumer do, in the transaction shapes the tests need:
 * batches of N rows per transaction, one multi-row {@code INSERT ... VALUES}, or {@code COPY}.
 *
 * <p>Each row's payload carries a sequence number; rows are spread over {@code keys} aggregate ids
 * so that per-key commit order can be checked on the Kafka side.
 */
public final class OutboxRows {

  static final String EVENT_TYPE = "PublicationRequested";
  static final String TENANT = "t1";

  private static final String INSERT =
      "INSERT INTO %s.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload,"
          + " trace_parent, trace_state) VALUES (?, 'publication', ?, ?, ?, ?::jsonb, ?, ?)";

  private final DataSource dataSource;
  private final String schema;
  private final int keys;
  private final AtomicLong sequence = new AtomicLong();
  private Supplier<UUID> idSource = UUID::randomUUID;

  OutboxRows(DataSource dataSource, String schema, int keys) {
    this.dataSource = dataSource;
    this.schema = schema;
    this.keys = keys;
  }

  public static String key(long seq, int keys) {
    return TENANT + "/a-" + (seq % keys) + "/dest-a";
  }

  public static String payload(long seq) {
    return "{\"seq\": "
        + seq
        + ", \"tenant\": \""
        + TENANT
        + "\", \"content\": {\"title\": \"t"
        + seq
        + "\"}}";
  }

  /**
   * From now on {@link #insert} gives rows time-ordered ids (UUIDv7, as the writer and consumer
   * do), so that id order is the order the rows were written in.
   */
  OutboxRows timeOrderedIds() {
    idSource = io.herald.common.id.UuidV7.system();
    return this;
  }

  /** Inserts {@code count} rows, {@code perTransaction} rows per committed transaction. */
  List<UUID> insert(int count, int perTransaction) throws SQLException {
    return insert(count, perTransaction, null, null);
  }

  List<UUID> insert(int count, int perTransaction, String traceparent, String tracestate)
      throws SQLException {
    List<UUID> ids = new ArrayList<>(count);
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(INSERT.formatted(schema))) {
      connection.setAutoCommit(false);
      int inTransaction = 0;
      for (int i = 0; i < count; i++) {
        long seq = sequence.getAndIncrement();
        UUID id = idSource.get();
        statement.setObject(1, id);
        statement.setString(2, key(seq, keys));
        statement.setString(3, EVENT_TYPE);
        statement.setString(4, TENANT);
        statement.setString(5, payload(seq));
        statement.setString(6, traceparent);
        statement.setString(7, tracestate);
        statement.addBatch();
        ids.add(id);
        if (++inTransaction == perTransaction || i == count - 1) {
          statement.executeBatch();
          connection.commit();
          inTransaction = 0;
        }
      }
    }
    return ids;
  }

  /**
   * Inserts one row per id in one transaction. The ids are the caller's, so that it knows which
   * rows a transaction whose commit failed may have written.
   */
  void insertInOneTransaction(List<UUID> ids) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(INSERT.formatted(schema))) {
      connection.setAutoCommit(false);
      for (UUID id : ids) {
        long seq = sequence.getAndIncrement();
        statement.setObject(1, id);
        statement.setString(2, key(seq, keys));
        statement.setString(3, EVENT_TYPE);
        statement.setString(4, TENANT);
        statement.setString(5, payload(seq));
        statement.setString(6, null);
        statement.setString(7, null);
        statement.addBatch();
      }
      statement.executeBatch();
      connection.commit();
    }
  }

  /** Inserts {@code count} rows with a single multi-row {@code INSERT ... VALUES} statement. */
  List<UUID> insertMultiRow(int count) throws SQLException {
    StringBuilder sql =
        new StringBuilder("INSERT INTO ")
            .append(schema)
            .append(
                ".outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload) VALUES ");
    for (int i = 0; i < count; i++) {
      sql.append(i == 0 ? "" : ",").append("(?, 'publication', ?, ?, ?, ?::jsonb)");
    }
    List<UUID> ids = new ArrayList<>(count);
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql.toString())) {
      int p = 1;
      for (int i = 0; i < count; i++) {
        long seq = sequence.getAndIncrement();
        UUID id = UUID.randomUUID();
        ids.add(id);
        statement.setObject(p++, id);
        statement.setString(p++, key(seq, keys));
        statement.setString(p++, EVENT_TYPE);
        statement.setString(p++, TENANT);
        statement.setString(p++, payload(seq));
      }
      statement.executeUpdate();
    }
    return ids;
  }

  /** Loads {@code count} rows with one {@code COPY ... FROM STDIN} in one transaction. */
  List<UUID> copy(int count) throws SQLException, IOException {
    List<UUID> ids = new ArrayList<>(count);
    StringBuilder csv = new StringBuilder();
    for (int i = 0; i < count; i++) {
      long seq = sequence.getAndIncrement();
      UUID id = UUID.randomUUID();
      ids.add(id);
      csv.append(id)
          .append(",publication,")
          .append(key(seq, keys))
          .append(',')
          .append(EVENT_TYPE)
          .append(',')
          .append(TENANT)
          .append(",\"")
          .append(payload(seq).replace("\"", "\"\""))
          .append("\"\n");
    }
    try (Connection connection = dataSource.getConnection()) {
      connection
          .unwrap(PGConnection.class)
          .getCopyAPI()
          .copyIn(
              "COPY "
                  + schema
                  + ".outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload)"
                  + " FROM STDIN (FORMAT csv)",
              new StringReader(csv.toString()));
    }
    return ids;
  }
}
