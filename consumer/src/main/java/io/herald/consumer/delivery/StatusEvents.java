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
    String json;
    try {
      json = Json.mapper().writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialise status event for " + delivery, e);
    }
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
}
