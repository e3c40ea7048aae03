package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The consumer as a real process: killed (SIGKILL) between the destination's success and the
 * recording of it, or frozen (SIGSTOP) past its lease while its call is in flight.
 */
@HeraldIntegrationTest
class ConsumerProcessIT {

  @Test
  void shouldNotCreateASecondArticleWhenKilledBetweenRemoteSuccessAndRecordingIt(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "kill-idem", 1)) {
      TestKit.Destination destination =
          kit.destination("kill-idem-dest", Behaviour.cooperative().withLookup(false));
      Map<String, String> properties = kit.properties(stack.groupId("kill-idem"), destination);
      PublicationKey key = new PublicationKey("t1", "a-kill-idem", "r-1", "kill-idem-dest");
      PublicationRequested request = TestKit.request(key, "Killed");
      try (ChildConsumer doomed = ChildConsumer.start(properties, "kill-idem-1")) {
        // The destination creates the article, then the consumer dies before it hears back.
        destination.simulator().failNext(new Fault.OnAccept(doomed::kill));

        kit.send(request);

        await().atMost(Duration.ofSeconds(30)).until(() -> !doomed.alive());
        assertEquals(DeliveryState.DISPATCHING, kit.find(key).orElseThrow().state());
        assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      }

      try (ChildConsumer restarted = ChildConsumer.start(properties, "kill-idem-2")) {
        DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);

        assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
        assertEquals(2, destination.simulator().createRequests(request.idempotencyKey()));
        assertEquals(
            destination
                .simulator()
                .findByExternalReference(request.idempotencyKey())
                .orElseThrow()
                .remoteId(),
            published.remoteId());
        assertEquals(
            List.of(
                "PublicationUncertain:UNCERTAIN",
                "PublicationRetrying:PENDING",
                "PublicationPublished:PUBLISHED"),
            kit.events(published.id()));
      }
    }
  }

  @Test
  void
      shouldNeedReconciliationWhenKilledBetweenRemoteSuccessAndRecordingAtANonIdempotentDestination(
          StackContext stack) {
    try (TestKit kit = new TestKit(stack, "kill-bare", 1)) {
      TestKit.Destination destination = kit.destination("kill-bare-dest", Behaviour.bare());
      Map<String, String> properties = kit.properties(stack.groupId("kill-bare"), destination);
      PublicationKey key = new PublicationKey("t1", "a-kill-bare", "r-1", "kill-bare-dest");
      PublicationRequested request = TestKit.request(key, "Killed");
      try (ChildConsumer doomed = ChildConsumer.start(properties, "kill-bare-1")) {
        destination.simulator().failNext(new Fault.OnAccept(doomed::kill));

        kit.send(request);

        await().atMost(Duration.ofSeconds(30)).until(() -> !doomed.alive());
      }

      try (ChildConsumer restarted = ChildConsumer.start(properties, "kill-bare-2")) {
        DeliveryView parked = kit.awaitState(key, DeliveryState.NEEDS_RECONCILIATION);

        await()
            .during(Duration.ofSeconds(2))
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    destination.simulator().createRequests(request.idempotencyKey()) == 1
                        && kit.find(key).orElseThrow().state()
                            == DeliveryState.NEEDS_RECONCILIATION);
        assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
        assertTrue(
            parked.lastError().contains("neither idempotency keys nor lookup"), parked.lastError());
        assertEquals(
            List.of(
                "PublicationUncertain:UNCERTAIN",
                "PublicationNeedsReconciliation:NEEDS_RECONCILIATION"),
            kit.events(parked.id()));
      }
    }
  }

  @Test
  void shouldRejectTheLateResultOfADispatcherStalledPastItsLease(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "fencing", 1)) {
      TestKit.Destination destination =
          kit.destination("fencing-dest", Behaviour.cooperative().withLookup(false));
      Map<String, String> properties = kit.properties(stack.groupId("fencing"), destination);
      PublicationKey key = new PublicationKey("t1", "a-fencing", "r-1", "fencing-dest");
      PublicationRequested request = TestKit.request(key, "Fenced");
      try (ChildConsumer stalled = ChildConsumer.start(properties, "fencing-stalled")) {
        // The destination creates the article and answers, but the caller is frozen (SIGSTOP)
        // with the answer unread, past its 3 s lease.
        destination.simulator().failNext(new Fault.OnAccept(stalled::suspend));
        kit.send(request);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> destination.simulator().createRequests(request.idempotencyKey()) == 1);
        long stalledToken = kit.find(key).orElseThrow().claimToken();

        // Another instance takes over: the lease expires, the delivery is UNCERTAIN, and the
        // destination honours the idempotency key, so it is sent again with the same key.
        kit.start(properties);
        DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
        assertTrue(published.claimToken() > stalledToken);

        // The frozen instance wakes up and tries to record its (stale) result.
        stalled.resume();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    stalled.metric(
                            "herald_consumer_fenced_results_total", "destination=\"fencing-dest\"")
                        == 1.0);

        DeliveryView after = kit.find(key).orElseThrow();
        assertEquals(published, after);
        assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
        assertEquals(2, destination.simulator().createRequests(request.idempotencyKey()));
        assertEquals(
            destination
                .simulator()
                .findByExternalReference(request.idempotencyKey())
                .orElseThrow()
                .remoteId(),
            after.remoteId());
        assertFalse(kit.events(after.id()).contains("PublicationPublished:PUBLISHED:twice"));
        assertEquals(
            1,
            kit.events(after.id()).stream()
                .filter(e -> e.startsWith("PublicationPublished"))
                .count());
      }
    }
  }
}
