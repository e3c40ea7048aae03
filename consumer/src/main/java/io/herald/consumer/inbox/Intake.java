package io.herald.consumer.inbox;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.IntakeResult;
import io.herald.consumer.delivery.NewDelivery;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Turns valid requests into deliveries, in one transaction per call (guarantee 3): for each record
 * the inbox row {@code (message_id, handler)} is inserted first with {@code ON CONFLICT DO
 * NOTHING}; only a new one creates the delivery, and a business key already known with another
 * payload is refused with a {@code PublicationConflict} event, leaving the existing delivery as it
 * is. A redelivered record therefore changes nothing, however often Kafka sends it.
 */
public final class Intake {

  /**
   * The inbox handler name of delivery intake: {@code consumer.inbox.handler} of every record it
   * took (the herald command's audit and trace read it).
   */
  public static final String HANDLER = "consumer.delivery-intake";

  private static final String INBOX_INSERT =
      "INSERT INTO consumer.inbox (message_id, handler) VALUES (?, ?) ON CONFLICT DO NOTHING";

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
          List<Result> results = new ArrayList<>(records.size());
          for (Received record : records) {
            results.add(acceptOne(connection, record));
          }
          return results;
        });
  }

  private Result acceptOne(Connection connection, Received record) throws SQLException {
    try (PreparedStatement inbox = connection.prepareStatement(INBOX_INSERT)) {
      inbox.setObject(1, record.messageId());
      inbox.setString(2, HANDLER);
      if (inbox.executeUpdate() == 0) {
        return new Result.Redelivered(record);
      }
    }
    IntakeResult intake =
        deliveries.insert(
            connection,
            new NewDelivery(
                ids.get(),
                record.messageId(),
                record.request(),
                record.traceParent(),
                record.traceState()),
            DeliveryPolicy.received(record.request().key().destination(), configuredDestinations));
    if (intake instanceof IntakeResult.Conflict conflict) {
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
    return new Result.Accepted(record, intake);
  }
}
