package io.herald.writer.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;

/**
 * Appends events to {@code writer.outbox} inside the caller's transaction, and applies the outbox
 * retention.
 *
 * <p>The relay reads events from the write-ahead log through a logical replication slot, never from
 * the table, so a row only has to exist at commit. The slot is created with the schema, before the
 * first outbox row can commit, so PostgreSQL retains the WAL of every committed row until the relay
 * has confirmed it, even if the relay has never run and even if the row was deleted in the
 * transaction that inserted it. Hence {@link OutboxRetention#DELETE_IMMEDIATELY} is possible:
 * insert, then delete before the caller commits; the table stays empty. The default, {@link
 * OutboxRetention#KEEP}, leaves the rows for a window (purged by {@code RetentionPurger}) because
 * they are what {@code herald relay recover} republishes when the slot, and with it the WAL, is
 * lost.
 *
 * <p>Thread-safe (stateless); the connection is the caller's and is neither committed nor closed.
 */
public final class OutboxWriter {

  /**
   * One statement per row (a JDBC batch, pipelined in one round trip), never {@code COPY}: rows
   * written by one COPY can share a WAL position, and Debezium 3.6.1 skips the rest of such a group
   * when it restarts inside it.
   */
  public static final String INSERT =
      """
      INSERT INTO writer.outbox
        (id, aggregate_type, aggregate_id, event_type, tenant_id, payload, trace_parent, trace_state, occurred_at)
      VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
      """;

  /** Public, like {@link #INSERT}, for the benchmark's raw-JDBC baseline. */
  public static final String DELETE = "DELETE FROM writer.outbox WHERE id = ?";

  private final OutboxRetention retention;

  public OutboxWriter(OutboxRetention retention) {
    this.retention = Objects.requireNonNull(retention, "retention");
  }

  public void append(Connection connection, List<OutboxEvent> events) throws SQLException {
    if (events.isEmpty()) {
      return;
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      for (OutboxEvent event : events) {
        insert.setObject(1, event.id());
        insert.setString(2, event.aggregateType());
        insert.setString(3, event.aggregateId());
        insert.setString(4, event.eventType());
        insert.setString(5, event.tenant());
        insert.setString(6, event.payloadJson());
        insert.setString(7, event.traceParent());
        insert.setString(8, event.traceState());
        insert.setObject(9, OffsetDateTime.ofInstant(event.occurredAt(), ZoneOffset.UTC));
        if (events.size() == 1) {
          insert.executeUpdate(); // a single request: cheaper than the driver's batch machinery
        } else {
          insert.addBatch();
        }
      }
      if (events.size() > 1) {
        insert.executeBatch();
      }
    }
    if (retention == OutboxRetention.DELETE_IMMEDIATELY) {
      try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
        for (OutboxEvent event : events) {
          delete.setObject(1, event.id());
          if (events.size() == 1) {
            delete.executeUpdate();
          } else {
            delete.addBatch();
          }
        }
        if (events.size() > 1) {
          delete.executeBatch();
        }
      }
    }
  }
}
