package io.herald.consumer.inbox;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.IntakeResult;
import io.herald.consumer.delivery.NewDelivery;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Turns valid requests into deliveries, in one transaction per call (guarantee 3): the inbox rows
 * {@code (message_id, handler)} of the records are inserted first with {@code ON CONFLICT DO
 * NOTHING}; only a record whose row is new creates its delivery, and a business key already known
 * with another payload is refused with a {@code PublicationConflict} event, leaving the existing
 * delivery as it is. A redelivered record therefore changes nothing, however often Kafka sends it.
 * A poll's records take one multi-row statement for their inbox rows and one for their deliveries,
 * in record order (the order {@code seq} keeps for guarantee 5), whatever their number.
 */
public final class Intake {

  /**
   * The inbox handler name of delivery intake: {@code consumer.inbox.handler} of every record it
   * took (the herald command's audit and trace read it).
   */
  public static final String HANDLER = "consumer.delivery-intake";

  /** The records' inbox rows in one statement; the ids it returns are the new ones. */
  private static final String INBOX_INSERT_ALL =
      """
      INSERT INTO consumer.inbox (message_id, handler)
      SELECT m.id, ? FROM unnest(?::uuid[]) AS m(id)
      ON CONFLICT DO NOTHING
      RETURNING message_id
      """;

  /** What happened to one record. */
  sealed interface Result {
    Received input();

    record Redelivered(Received input) implements Result {}

    record Accepted(Received input, IntakeResult intake) implements Result {}
  }

  private final Deliveries deliveries;
  private final Supplier<UUID> ids;
  private final Set<String> configuredDestinations;

  /**
   * @param configuredDestinations the destinations this consumer has {@code
   *     consumer.destinations.*} for; a delivery for any other starts {@code UNKNOWN_DESTINATION}
   */
  Intake(Deliveries deliveries, Supplier<UUID> ids, Set<String> configuredDestinations) {
    this.deliveries = deliveries;
    this.ids = ids;
    this.configuredDestinations = Set.copyOf(configuredDestinations);
  }

  List<Result> accept(List<Received> records) throws SQLException {
    return Transactions.inTransaction(
        deliveries.dataSource(),
        connection -> {
          Set<UUID> fresh = insertInbox(connection, records);
          boolean[] taken = new boolean[records.size()];
          List<NewDelivery> created = new ArrayList<>();
          List<Transition> initial = new ArrayList<>();
          for (int i = 0; i < records.size(); i++) {
            Received record = records.get(i);
            // remove: a message id twice in one poll is new only the first time.
            if (fresh.remove(record.messageId())) {
              taken[i] = true;
              created.add(
                  new NewDelivery(
                      ids.get(),
                      record.messageId(),
                      record.request(),
                      record.traceParent(),
                      record.traceState()));
              initial.add(
                  DeliveryPolicy.received(
                      record.request().key().destination(), configuredDestinations));
            }
          }
          List<IntakeResult> intakes = deliveries.insertAll(connection, created, initial);
          List<Result> results = new ArrayList<>(records.size());
          int next = 0;
          for (int i = 0; i < records.size(); i++) {
            Received record = records.get(i);
            if (taken[i]) {
              IntakeResult intake = intakes.get(next++);
              if (intake instanceof IntakeResult.Conflict conflict) {
                announceConflict(connection, record, conflict);
              }
              results.add(new Result.Accepted(record, intake));
            } else {
              results.add(new Result.Redelivered(record));
            }
          }
          return results;
        });
  }

  private static Set<UUID> insertInbox(Connection connection, List<Received> records)
      throws SQLException {
    UUID[] messageIds = new UUID[records.size()];
    for (int i = 0; i < messageIds.length; i++) {
      messageIds[i] = records.get(i).messageId();
    }
    Set<UUID> fresh = new HashSet<>();
    try (PreparedStatement inbox = connection.prepareStatement(INBOX_INSERT_ALL)) {
      inbox.setString(1, HANDLER);
      inbox.setArray(2, connection.createArrayOf("uuid", messageIds));
      try (ResultSet rows = inbox.executeQuery()) {
        while (rows.next()) {
          fresh.add(rows.getObject(1, UUID.class));
        }
      }
    }
    return fresh;
  }

  private void announceConflict(
      Connection connection, Received record, IntakeResult.Conflict conflict) throws SQLException {
    deliveries
        .events()
        .appendConflict(
            connection,
            conflict.existing(),
            record.request().jobId(),
            "same business key as delivery "
                + conflict.existing().deliveryId()
                + " with another payload (hash "
                + record.request().payloadHash()
                + ", existing "
                + conflict.existingPayloadHash()
                + "): refused, existing delivery unchanged");
  }
}
