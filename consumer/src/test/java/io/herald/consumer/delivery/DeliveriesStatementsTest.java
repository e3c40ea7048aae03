package io.herald.consumer.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.policy.Capabilities;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.policy.DeliveryPolicy.Decision;
import io.herald.consumer.policy.DeliveryPolicy.Input;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The states the claim, lease and reconciliation statements name as SQL literals (as their partial
 * indexes do) are the ones the delivery policy decides with: one definition, checked.
 */
class DeliveriesStatementsTest {

  private static final DeliveryPolicy POLICY =
      new DeliveryPolicy(3, Duration.ofSeconds(1), (attempt, retryAfter) -> Duration.ZERO);

  @Test
  void shouldClaimForDispatchExactlyTheStatesThePolicyCallsClaimable() {
    assertContains(
        Deliveries.CLAIM_DUE, "d.state IN (" + literals(DeliveryPolicy.claimable()) + ")");
    assertContains(Deliveries.CLAIM_DUE, "SET state = '" + DeliveryState.DISPATCHING + "'");
  }

  @Test
  void shouldLetOnlyFinalStatesReleaseTheNextRevision() {
    assertContains(Deliveries.CLAIM_DUE, "e.state NOT IN (" + literals(finals()) + ")");
  }

  private static Set<DeliveryState> finals() {
    return Arrays.stream(DeliveryState.values())
        .filter(DeliveryState::isFinal)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(DeliveryState.class)));
  }

  @Test
  void shouldCountOpenAndFinishedDeliveriesByTheFinalStates() {
    String finals = literals(finals());
    // Exactly the predicate of ix_delivery_open_per_article, so the open count reads that index.
    assertContains(Deliveries.COUNT_OPEN_BY_STATE, "d.state NOT IN (" + finals + ")");
    assertContains(Deliveries.COUNT_FINISHED_BY_STATE, "d.state IN (" + finals + ")");
  }

  @Test
  void shouldExpireLeasesAsThePolicySaysAnExpiredLeaseEnds() {
    Transition expiry =
        POLICY.decide(DeliveryState.DISPATCHING, new Input.LeaseExpired()).transition();
    assertContains(Deliveries.EXPIRE_LEASES, "d.state = '" + DeliveryState.DISPATCHING + "'");
    assertContains(Deliveries.EXPIRE_LEASES, "SET state = '" + expiry.to() + "'");
  }

  @Test
  void shouldReconcileOnlyTheStateThePolicyReconciles() {
    Input reconcile =
        new Input.Reconcile(new Capabilities(true, false, Duration.ZERO), 1, Duration.ZERO);
    for (DeliveryState state : DeliveryState.values()) {
      boolean reconciled = !(POLICY.decide(state, reconcile) instanceof Decision.Refuse);
      String guard = "d.state = '" + state + "'";
      assertEquals(reconciled, Deliveries.SETTLE_UNCERTAIN.contains(guard), state.name());
      assertEquals(reconciled, Deliveries.CLAIM_UNCERTAIN.contains(guard), state.name());
    }
  }

  private static String literals(Set<DeliveryState> states) {
    return states.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", "));
  }

  private static void assertContains(String sql, String fragment) {
    assertTrue(sql.contains(fragment), () -> "expected " + fragment + " in\n" + sql);
  }
}
