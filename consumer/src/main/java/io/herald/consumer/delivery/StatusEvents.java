package io.herald.consumer.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Writes status events to {@code consumer.outbox}, always on the caller's connection so the event
 * commits or rolls back with the state change it reports. The relay carries them to {@code
 * herald.delivery.events}.
 *
 * <p>Thread-safe (stateless apart from the injected clock and id generator).
 */
public final class StatusEvents {

  /** {@code aggregate_type} of every consumer status event. */
  public static final String AGGREGATE_TYPE = "delivery";

  /** The state reported by {@code PublicationConflict} (the existing delivery is unchanged). */
  public static final String CONFLICT_STATE = "CONFLICT";

  private static final String INSERT =
      """
      INSERT INTO consumer.outbox
        (id, aggregate_type, aggregate_id, event_type, tenant_id, payload, trace_parent, trace_state,
         occurred_at)
      VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
      """;
  private static final String DELETE = "DELETE FROM consumer.outbox WHERE id = ?";

  /** Several events in one statement: one array per column, one row per element. */
  private static final String INSERT_ALL =
      """
      INSERT INTO consumer.outbox
        (id, aggregate_type, aggregate_id, event_type, tenant_id, payload, trace_parent, trace_state,
         occurred_at)
      SELECT e.id, ?, e.aggregate_id, e.event_type, e.tenant_id, e.payload::jsonb, e.trace_parent,
             e.trace_state, e.occurred_at::timestamptz
        FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                    ?::text[])
             AS e(id, aggregate_id, event_type, tenant_id, payload, trace_parent, trace_state,
                  occurred_at)
      """;

  private static final String DELETE_ALL = "DELETE FROM consumer.outbox WHERE id = ANY(?::uuid[])";

  /** A delivery that entered its current state, and why: one status event. */
  public record Announcement(DeliverySnapshot delivery, String reason) {}

  private final Clock clock;
  private final Supplier<UUID> ids;
  private final boolean deleteAfterInsert;

  /**
   * @param outboxRetention {@link Duration#ZERO} deletes each event in the transaction that inserts
   *     it (the WAL still carries it to the relay); a positive window keeps rows for audit and the
   *     retention purger removes them later
   */
  public StatusEvents(Clock clock, Supplier<UUID> ids, Duration outboxRetention) {
    this.clock = clock;
    this.ids = ids;
    this.deleteAfterInsert = outboxRetention.isZero();
  }

  /** Announces that {@code delivery} entered its current state. */
  public UUID append(Connection connection, DeliverySnapshot delivery, String reason)
      throws SQLException {
    return write(
        connection, delivery, delivery.state().eventType(), delivery.state().name(), reason, null);
  }

  /**
   * Announces a refused {@code PublicationRequested}: same business key as {@code existing}, other
   * payload. {@code existing} is not changed.
   */
  public UUID appendConflict(
      Connection connection, DeliverySnapshot existing, UUID conflictingJobId, String reason)
      throws SQLException {
    return write(
        connection,
        existing,
        io.herald.common.event.EventTypes.PUBLICATION_CONFLICT,
        CONFLICT_STATE,
        reason,
        conflictingJobId);
  }

  /**
   * Announces several transitions in one statement (and one delete with {@code
   * delete-immediately}), each event as {@link #append} writes it.
   */
  public void appendAll(Connection connection, List<Announcement> announcements)
      throws SQLException {
    if (announcements.isEmpty()) {
      return;
    }
    int n = announcements.size();
    UUID[] id = new UUID[n];
    String[] aggregateId = new String[n];
    String[] eventType = new String[n];
    String[] tenant = new String[n];
    String[] payload = new String[n];
    String[] traceParent = new String[n];
    String[] traceState = new String[n];
    String[] occurredAt = new String[n];
    for (int i = 0; i < n; i++) {
      DeliverySnapshot delivery = announcements.get(i).delivery();
      Instant now = clock.instant();
      id[i] = ids.get();
      aggregateId[i] = delivery.aggregateId();
      eventType[i] = delivery.state().eventType();
      tenant[i] = delivery.tenant();
      payload[i] =
          payload(delivery, delivery.state().name(), announcements.get(i).reason(), null, now);
      traceParent[i] = delivery.traceParent();
      traceState[i] = delivery.traceState();
      occurredAt[i] = now.toString();
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT_ALL)) {
      insert.setString(1, AGGREGATE_TYPE);
      insert.setArray(2, connection.createArrayOf("uuid", id));
      insert.setArray(3, connection.createArrayOf("text", aggregateId));
      insert.setArray(4, connection.createArrayOf("text", eventType));
      insert.setArray(5, connection.createArrayOf("text", tenant));
      insert.setArray(6, connection.createArrayOf("text", payload));
      insert.setArray(7, connection.createArrayOf("text", traceParent));
      insert.setArray(8, connection.createArrayOf("text", traceState));
      insert.setArray(9, connection.createArrayOf("text", occurredAt));
      insert.executeUpdate();
    }
    if (deleteAfterInsert) {
      try (PreparedStatement delete = connection.prepareStatement(DELETE_ALL)) {
        delete.setArray(1, connection.createArrayOf("uuid", id));
        delete.executeUpdate();
      }
    }
  }

  private UUID write(
      Connection connection,
      DeliverySnapshot delivery,
      String eventType,
      String state,
      String reason,
      UUID jobIdOverride)
      throws SQLException {
    UUID id = ids.get();
    Instant now = clock.instant();
    String json = payload(delivery, state, reason, jobIdOverride, now);
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      insert.setObject(1, id);
      insert.setString(2, AGGREGATE_TYPE);
      insert.setString(3, delivery.aggregateId());
      insert.setString(4, eventType);
      insert.setString(5, delivery.tenant());
      insert.setString(6, json);
      insert.setString(7, delivery.traceParent());
      insert.setString(8, delivery.traceState());
      insert.setTimestamp(9, Timestamp.from(now));
      insert.executeUpdate();
    }
    if (deleteAfterInsert) {
      try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
        delete.setObject(1, id);
        delete.executeUpdate();
      }
    }
    return id;
  }

  /** The event's JSON payload, the same for one event and for several. */
  private static String payload(
      DeliverySnapshot delivery, String state, String reason, UUID jobIdOverride, Instant now) {
    ObjectNode payload = Json.mapper().createObjectNode();
    payload.put("deliveryId", delivery.deliveryId().toString());
    payload.put("jobId", (jobIdOverride != null ? jobIdOverride : delivery.jobId()).toString());
    payload.put("tenant", delivery.tenant());
    payload.put("articleId", delivery.articleId());
    payload.put("revisionId", delivery.revisionId());
    payload.put("destination", delivery.destination());
    payload.put("state", state);
    payload.put("remoteId", delivery.remoteId());
    payload.put("attempts", delivery.attempts());
    payload.put("reason", reason);
    payload.put("occurredAt", now.toString());
    try {
      return Json.mapper().writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialise status event for " + delivery, e);
    }
  }
}
