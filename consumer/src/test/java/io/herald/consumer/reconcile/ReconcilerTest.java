package io.herald.consumer.reconcile;

import static io.herald.consumer.delivery.FakeDeliveryQueue.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.FakeDeliveryQueue;
import io.herald.consumer.delivery.FakeDeliveryQueue.Settled;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.FakeDestination;
import io.herald.consumer.destination.LookupResult;
import io.herald.consumer.dispatch.DispatchSettings;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.policy.DeliveryPolicy;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcilerTest {

  private static final int MAX = 4;
  private static final Duration GRACE = Duration.ofSeconds(9);
  private static final Duration LOOKUP_RETRY = Duration.ofSeconds(11);

  private final FakeDeliveryQueue queue = new FakeDeliveryQueue();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ConsumerMetrics metrics = new ConsumerMetrics(registry);
  private final DeliveryPolicy policy =
      new DeliveryPolicy(MAX, LOOKUP_RETRY, (attempt, retryAfter) -> Duration.ZERO);

  @Test
  void shouldSendUncertainDeliveriesAgainWithTheSameKeyUntilAttemptsRunOut() throws Exception {
    runOnce(new FakeDestination("idem", true, false));

    assertEquals(2, queue.settled.size(), queue.settled.toString());
    Settled exhausted = queue.settled.get(0);
    assertEquals(MAX, exhausted.minAttempts());
    assertEquals(Integer.MAX_VALUE, exhausted.maxAttemptsExclusive());
    assertEquals(DeliveryState.NEEDS_RECONCILIATION, exhausted.transition().to());
    Settled retried = queue.settled.get(1);
    assertEquals(0, retried.minAttempts());
    assertEquals(MAX, retried.maxAttemptsExclusive());
    assertEquals(DeliveryState.PENDING, retried.transition().to());
    assertTrue(queue.uncertainClaims.isEmpty());
  }

  @Test
  void shouldLeaveUncertainDeliveriesToAnOperatorWhenTheDestinationCanNeitherDedupNorLookUp()
      throws Exception {
    runOnce(new FakeDestination("bare", false, false));

    assertEquals(1, queue.settled.size());
    assertEquals(DeliveryState.NEEDS_RECONCILIATION, queue.settled.get(0).transition().to());
    assertEquals(0, queue.settled.get(0).minAttempts());
  }

  @Test
  void shouldPublishWithTheFoundIdWhenALookupAfterTheGraceFindsTheArticle() throws Exception {
    FakeDestination lookup =
        new FakeDestination("lookup", false, true).lookingUp(new LookupResult.Found("art-5"));
    ClaimedDelivery claim = claim("lookup", DeliveryState.UNCERTAIN, 1, true);
    queue.uncertain.add(claim);

    runOnce(lookup);

    assertEquals(GRACE, queue.uncertainClaims.get(0).grace());
    assertTrue(queue.settled.isEmpty());
    assertEquals(List.of(claim), lookup.lookedUp);
    Transition recorded = queue.completed.get(0).transition();
    assertEquals(DeliveryState.PUBLISHED, recorded.to());
    assertEquals("art-5", recorded.remoteId());
    assertEquals(1.0, metrics.count("herald.consumer.transitions", "state", "PUBLISHED"));
  }

  @Test
  void shouldRetrySafelyWhenTheLookupFindsNothingAndAttemptsRemain() throws Exception {
    FakeDestination lookup =
        new FakeDestination("lookup", false, true).lookingUp(new LookupResult.NotFound());
    queue.uncertain.add(claim("lookup", DeliveryState.UNCERTAIN, MAX - 1, true));

    runOnce(lookup);

    assertEquals(DeliveryState.PENDING, queue.completed.get(0).transition().to());
  }

  @Test
  void shouldStayUncertainWithoutAnEventAndAskAgainLaterWhenTheLookupGetsNoAnswer()
      throws Exception {
    FakeDestination lookup =
        new FakeDestination("lookup", false, true).lookingUp(new LookupResult.Unavailable("503"));
    queue.uncertain.add(claim("lookup", DeliveryState.UNCERTAIN, 1, true));

    runOnce(lookup);

    Transition recorded = queue.completed.get(0).transition();
    assertEquals(DeliveryState.UNCERTAIN, recorded.to());
    assertFalse(recorded.announced());
    assertEquals(LOOKUP_RETRY, recorded.retryIn());
  }

  @Test
  void shouldMakeExpiredClaimsUncertainAndRefreshTheStateGauges() throws Exception {
    ClaimedDelivery stale = claim("idem", DeliveryState.DISPATCHING, 1, false);
    queue.expired.add(FakeDeliveryQueue.snapshot(stale, DeliveryState.UNCERTAIN));
    queue.counts.put(DeliveryState.PENDING, 12L);

    runOnce(new FakeDestination("idem", true, false));

    assertEquals(DeliveryState.UNCERTAIN, queue.expiries.get(0).to());
    assertEquals(1.0, metrics.count("herald.consumer.transitions", "state", "UNCERTAIN"));
    Gauge pending = registry.find("herald.consumer.deliveries").tag("state", "PENDING").gauge();
    assertEquals(12.0, pending.value());
  }

  @Test
  void shouldCountFinishedDeliveriesEveryRoundWhileTheCountIsCheap() throws Exception {
    assertEquals(List.of(1001.0, 1001.0), twoRoundsCounting(Duration.ZERO));
    assertEquals(2, queue.finishedCountCalls);
  }

  @Test
  void shouldSpaceOutTheCountOfFinishedDeliveriesByWhatItCosts() throws Exception {
    // A count that takes 100 ms is due again 5 s later: not in the round right after it.
    assertEquals(List.of(1000.0, 1001.0), twoRoundsCounting(Duration.ofMillis(100)));
    assertEquals(1, queue.finishedCountCalls);
  }

  /** Two rounds back to back, the counts growing between them: PUBLISHED, then PENDING. */
  private List<Double> twoRoundsCounting(Duration finishedCountTakes) throws Exception {
    queue.finishedCountTakes = finishedCountTakes;
    queue.counts.put(DeliveryState.PENDING, 1000L);
    queue.counts.put(DeliveryState.PUBLISHED, 1000L);
    try (Reconciler reconciler = reconciler(new FakeDestination("idem", true, false))) {
      reconciler.runOnce();
      queue.counts.put(DeliveryState.PENDING, 1001L);
      queue.counts.put(DeliveryState.PUBLISHED, 1001L);
      reconciler.runOnce();
    }
    assertEquals(2, queue.countCalls);
    return List.of(gauge("PUBLISHED"), gauge("PENDING"));
  }

  private double gauge(String state) {
    return registry.find("herald.consumer.deliveries").tag("state", state).gauge().value();
  }

  private void runOnce(FakeDestination destination) throws Exception {
    try (Reconciler reconciler = reconciler(destination)) {
      reconciler.runOnce();
    }
  }

  private Reconciler reconciler(FakeDestination destination) {
    return new Reconciler(
        queue,
        Map.of(destination.config().name(), destination),
        new DispatchSettings(
            "test-owner",
            4,
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            MAX,
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            Duration.ofMillis(20),
            Duration.ofSeconds(1),
            DispatchSettings.DEFAULT_RECORD_BATCH_SIZE),
        new ReconcileSettings(GRACE, Duration.ofSeconds(1), 10, LOOKUP_RETRY),
        policy,
        metrics);
  }
}
