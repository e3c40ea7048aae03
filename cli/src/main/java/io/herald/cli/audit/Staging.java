package io.herald.cli.audit;

import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * The audit's scratch tables: what it read from Kafka and from the destinations, copied into
 * temporary tables of the consumer's database session so that PostgreSQL, not the command's heap,
 * holds a million events and joins them with the deliveries. Rows arrive through {@code COPY} in
 * batches of {@value #BATCH_ROWS}, so the command's memory stays bounded by one batch whatever the
 * size of the topics. Temporary tables need no privilege beyond {@code TEMPORARY}, which every role
 * has by default, and vanish with the session. Not thread-safe: one per audit.
 */
final class Staging implements AutoCloseable {

  static final int BATCH_ROWS = 10_000;

  /** The tables, created once per session. */
  private static final String CREATE =
      """
      CREATE TEMPORARY TABLE audit_event (
        job_id uuid NOT NULL, event_id uuid NOT NULL, tenant_id text NOT NULL,
        payload_hash text NOT NULL, kafka_partition int NOT NULL, kafka_offset bigint NOT NULL);
      CREATE TEMPORARY TABLE audit_dlq (event_id uuid NOT NULL);
      CREATE TEMPORARY TABLE audit_committed (kafka_partition int PRIMARY KEY, next_offset bigint NOT NULL);
      CREATE TEMPORARY TABLE audit_status (
        job_id uuid NOT NULL, event_id uuid NOT NULL, state text NOT NULL,
        occurred_at timestamptz NOT NULL);
      CREATE TEMPORARY TABLE audit_remote (
        external_reference text NOT NULL, remote_id text NOT NULL);
      """;

  /** Temporary tables are never analysed by autovacuum: without this the joins plan blind. */
  private static final String ANALYZE =
      "ANALYZE audit_event, audit_dlq, audit_committed, audit_status, audit_remote";

  /** One table being filled. */
  enum Table {
    EVENT("audit_event"),
    DLQ("audit_dlq"),
    COMMITTED("audit_committed"),
    STATUS("audit_status"),
    REMOTE("audit_remote");

    private final String copy;

    Table(String name) {
      this.copy = "COPY " + name + " FROM STDIN (FORMAT text)";
    }
  }

  private final Connection connection;
  private final CopyManager copy;
  private final StringBuilder batch = new StringBuilder(1 << 20);
  private Table batchTable;
  private int batchRows;

  Staging(Connection connection) throws SQLException {
    this.connection = connection;
    this.copy = connection.unwrap(PGConnection.class).getCopyAPI();
    try (Statement statement = connection.createStatement()) {
      statement.execute(CREATE);
    }
  }

  /** Adds one row to {@code table}; values are written as text, null as SQL NULL. */
  void add(Table table, Object... values) throws SQLException {
    if (batchTable != table) {
      flush();
      batchTable = table;
    }
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        batch.append('\t');
      }
      escape(values[i]);
    }
    batch.append('\n');
    if (++batchRows >= BATCH_ROWS) {
      flush();
    }
  }

  /** Sends what is buffered, then refreshes the planner's statistics. */
  void finish() throws SQLException {
    flush();
    try (Statement statement = connection.createStatement()) {
      statement.execute(ANALYZE);
    }
  }

  private void flush() throws SQLException {
    if (batchRows == 0) {
      return;
    }
    try {
      copy.copyIn(batchTable.copy, new StringReader(batch.toString()));
    } catch (IOException e) {
      // A StringReader does not fail; the driver wraps socket failures as SQLException.
      throw new SQLException("COPY into " + batchTable + " failed", "08006", e);
    }
    batch.setLength(0);
    batchRows = 0;
  }

  /** COPY's text format: backslash escapes for the characters that delimit rows and columns. */
  private void escape(Object value) {
    if (value == null) {
      batch.append("\\N");
      return;
    }
    String text = value.toString();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> batch.append("\\\\");
        case '\t' -> batch.append("\\t");
        case '\n' -> batch.append("\\n");
        case '\r' -> batch.append("\\r");
        default -> batch.append(c);
      }
    }
  }

  @Override
  public void close() {
    batch.setLength(0);
  }
}
