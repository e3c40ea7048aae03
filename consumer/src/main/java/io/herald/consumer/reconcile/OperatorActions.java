package io.herald.consumer.reconcile;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.Deliveries.OperatorChange;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may decide about a delivery nobody could settle automatically. Each decision
 * changes the delivery, writes its status event and records who decided what, when and why in
 * {@code consumer.operator_action}, all in one transaction.
 *
 * <pre>{@code
 * actions.markPublished(deliveryId, "art-981", "alice", "found it in the CMS by title");
 * actions.retry(deliveryId, "alice", "confirmed with the vendor: nothing was created");
 * actions.abandon(deliveryId, "alice", "article withdrawn");
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class OperatorActions {

  /** The result of an operator's request. */
  public sealed interface Result {
    /** The decision was applied. */
    record Applied(UUID actionId, DeliveryState from, DeliveryState to) implements Result {}

    record NotFound(UUID deliveryId) implements Result {}

    /** The delivery is not in a state this decision applies to; nothing changed. */
    record NotAllowed(UUID deliveryId, DeliveryState current, Set<DeliveryState> allowed)
        implements Result {}
  }

  /** The decisions, with the states they apply to and the state they lead to. */
  public enum Action {
    MARK_PUBLISHED(
        EnumSet.of(DeliveryState.NEEDS_RECONCILIATION, DeliveryState.UNCERTAIN),
        DeliveryState.PUBLISHED),
    RETRY(EnumSet.of(DeliveryState.NEEDS_RECONCILIATION), DeliveryState.PENDING),
    ABANDON(EnumSet.of(DeliveryState.NEEDS_RECONCILIATION), DeliveryState.ABANDONED);

    private final Set<DeliveryState> from;
    private final DeliveryState to;

    Action(Set<DeliveryState> from, DeliveryState to) {
      this.from = from;
      this.to = to;
    }

    public Set<DeliveryState> from() {
      return from;
    }

    public DeliveryState to() {
      return to;
    }
  }

  private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

  private static final String AUDIT =
      """
      INSERT INTO consumer.operator_action
        (id, delivery_id, action, actor, reason, remote_id, from_state, to_state)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private final Deliveries deliveries;
  private final Supplier<UUID> ids;

  public OperatorActions(Deliveries deliveries, Supplier<UUID> ids) {
    this.deliveries = deliveries;
    this.ids = ids;
  }

  /** The operator established that the article exists at the destination as {@code remoteId}. */
  public Result markPublished(UUID deliveryId, String remoteId, String actor, String reason)
      throws SQLException {
    requireText("remoteId", remoteId);
    return apply(Action.MARK_PUBLISHED, deliveryId, remoteId, actor, reason);
  }

  /** The operator established that nothing was created: send again (attempts start over). */
  public Result retry(UUID deliveryId, String actor, String reason) throws SQLException {
    return apply(Action.RETRY, deliveryId, null, actor, reason);
  }

  /** The operator gives the delivery up; it becomes final and releases later revisions. */
  public Result abandon(UUID deliveryId, String actor, String reason) throws SQLException {
    return apply(Action.ABANDON, deliveryId, null, actor, reason);
  }

  public Result apply(Action action, UUID deliveryId, String remoteId, String actor, String reason)
      throws SQLException {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(deliveryId, "deliveryId");
    requireText("actor", actor);
    requireText("reason", reason);
    if (action == Action.MARK_PUBLISHED) {
      requireText("remoteId", remoteId);
    }
    UUID actionId = ids.get();
    String eventReason = "operator " + actor + ": " + action + ": " + reason;
    Result result =
        Transactions.inTransaction(
            deliveries.dataSource(),
            connection -> {
              OperatorChange change =
                  deliveries.operatorChange(
                      connection,
                      deliveryId,
                      action.from(),
                      action.to(),
                      action == Action.MARK_PUBLISHED ? remoteId : null,
                      eventReason,
                      action == Action.RETRY);
              return switch (change) {
                case OperatorChange.NotFound notFound -> new Result.NotFound(deliveryId);
                case OperatorChange.NotAllowed notAllowed ->
                    new Result.NotAllowed(deliveryId, notAllowed.current(), action.from());
                case OperatorChange.Applied applied -> {
                  audit(
                      connection,
                      actionId,
                      deliveryId,
                      action,
                      actor,
                      reason,
                      remoteId,
                      applied.from());
                  yield new Result.Applied(actionId, applied.from(), action.to());
                }
              };
            });
    log.info(
        "Operator action on delivery {}: {} by {} ({}): {}",
        deliveryId,
        action,
        actor,
        reason,
        result);
    return result;
  }

  private static void audit(
      Connection connection,
      UUID actionId,
      UUID deliveryId,
      Action action,
      String actor,
      String reason,
      String remoteId,
      DeliveryState from)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(AUDIT)) {
      insert.setObject(1, actionId);
      insert.setObject(2, deliveryId);
      insert.setString(3, action.name());
      insert.setString(4, actor);
      insert.setString(5, reason);
      insert.setString(6, action == Action.MARK_PUBLISHED ? remoteId : null);
      insert.setString(7, from.name());
      insert.setString(8, action.to().name());
      insert.executeUpdate();
    }
  }

  private static void requireText(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }
}
