package io.herald.consumer.reconcile;

import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.policy.DeliveryPolicy.Decision;
import io.herald.consumer.policy.DeliveryPolicy.Input;
import io.herald.consumer.policy.OperatorAction;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may decide about a delivery nobody could settle automatically. Each decision
 * changes the delivery, writes its status event and records who decided what, when and why in
 * {@code consumer.operator_action}, all in one transaction. Whether a decision applies to the
 * delivery's state, and what it leads to, is the {@link DeliveryPolicy}'s answer; this class locks
 * the row, asks, and records.
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

    /**
     * The delivery is not in a state this decision applies to; nothing changed.
     *
     * @param reason the policy's refusal
     */
    record NotAllowed(
        UUID deliveryId, DeliveryState current, Set<DeliveryState> allowed, String reason)
        implements Result {}
  }

  private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

  private static final String AUDIT =
      """
      INSERT INTO consumer.operator_action
        (id, delivery_id, action, actor, reason, remote_id, from_state, to_state)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private final Deliveries deliveries;
  private final DeliveryPolicy policy;
  private final Supplier<UUID> ids;
  private final Predicate<String> configured;

  /** Operator actions at a consumer that treats every destination as configured. */
  public OperatorActions(Deliveries deliveries, DeliveryPolicy policy, Supplier<UUID> ids) {
    this(deliveries, policy, ids, destination -> true);
  }

  /**
   * @param configuredDestinations the destinations this consumer has {@code
   *     consumer.destinations.*} for: only those of an {@code UNKNOWN_DESTINATION} delivery can be
   *     retried
   */
  public OperatorActions(
      Deliveries deliveries,
      DeliveryPolicy policy,
      Supplier<UUID> ids,
      Set<String> configuredDestinations) {
    this(deliveries, policy, ids, Set.copyOf(configuredDestinations)::contains);
  }

  private OperatorActions(
      Deliveries deliveries,
      DeliveryPolicy policy,
      Supplier<UUID> ids,
      Predicate<String> configured) {
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ids = Objects.requireNonNull(ids, "ids");
    this.configured = configured;
  }

  /** The operator established that the article exists at the destination as {@code remoteId}. */
  public Result markPublished(UUID deliveryId, String remoteId, String actor, String reason)
      throws SQLException {
    requireText("remoteId", remoteId);
    return apply(OperatorAction.MARK_PUBLISHED, deliveryId, remoteId, actor, reason);
  }

  /** The operator established that nothing was created: send again (attempts start over). */
  public Result retry(UUID deliveryId, String actor, String reason) throws SQLException {
    return apply(OperatorAction.RETRY, deliveryId, null, actor, reason);
  }

  /** The operator gives the delivery up; it becomes final and releases later revisions. */
  public Result abandon(UUID deliveryId, String actor, String reason) throws SQLException {
    return apply(OperatorAction.ABANDON, deliveryId, null, actor, reason);
  }

  public Result apply(
      OperatorAction action, UUID deliveryId, String remoteId, String actor, String reason)
      throws SQLException {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(deliveryId, "deliveryId");
    requireText("actor", actor);
    requireText("reason", reason);
    if (action == OperatorAction.MARK_PUBLISHED) {
      requireText("remoteId", remoteId);
    }
    UUID actionId = ids.get();
    Result result =
        Transactions.inTransaction(
            deliveries.dataSource(),
            connection -> {
              Optional<Deliveries.Locked> current = deliveries.lock(connection, deliveryId);
              if (current.isEmpty()) {
                return new Result.NotFound(deliveryId);
              }
              DeliveryState from = current.get().state();
              Input.Operator input =
                  new Input.Operator(
                      action,
                      remoteId,
                      actor,
                      reason,
                      configured.test(current.get().destination()));
              Decision decision = policy.decide(from, input);
              if (decision instanceof Decision.Refuse refuse) {
                return new Result.NotAllowed(
                    deliveryId, from, policy.allowedFrom(action), refuse.reason());
              }
              Transition transition = decision.transition();
              deliveries.applyOperatorChange(connection, deliveryId, from, transition);
              audit(connection, actionId, deliveryId, action, actor, reason, transition, from);
              return new Result.Applied(actionId, from, transition.to());
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
      OperatorAction action,
      String actor,
      String reason,
      Transition transition,
      DeliveryState from)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(AUDIT)) {
      insert.setObject(1, actionId);
      insert.setObject(2, deliveryId);
      insert.setString(3, action.name());
      insert.setString(4, actor);
      insert.setString(5, reason);
      insert.setString(6, transition.remoteId());
      insert.setString(7, from.name());
      insert.setString(8, transition.to().name());
      insert.executeUpdate();
    }
  }

  private static void requireText(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }
}
