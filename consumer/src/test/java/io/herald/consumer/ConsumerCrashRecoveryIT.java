package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario F12: a consumer SIGKILLed while many calls are in flight, then restarted. With the
 * shipped lease, heartbeat and reconcile timings (not the test kit's short ones), every delivery
 * that was DISPATCHING reaches a final or NEEDS_RECONCILIATION state within 30 s of the restart,
 * and the key-honouring destination holds exactly one article per delivery.
 */
@HeraldIntegrationTest
class ConsumerCrashRecoveryIT {

  private static final int IN_FLIGHT = 8;

  @Test
  void shouldSettleEveryInFlightDeliveryWithin30SecondsWhenTheConsumerIsKilledAndRestarted(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "crash", 1)) {
      TestKit.Destination destination =
          kit.destination("crash-dest", Behaviour.cooperative().withLookup(false));
      Map<String, String> properties = kit.properties(stack.groupId("crash"), destination);
      // The shipped timings of claims and reconciliation: the lease, its renewal and the
      // reconcile interval are what this scenario is about.
      properties.remove("consumer.dispatch.lease");
      properties.remove("consumer.reconcile.interval");
      properties.put("consumer.destinations.crash-dest.read-timeout", "60s");
      properties.put("consumer.destinations.crash-dest.concurrency", Integer.toString(IN_FLIGHT));
      // Every first call creates its article and then hangs: all of them are in flight when the
      // consumer dies.
      destination
          .simulator()
          .failNext(new Fault.StallAfterAccept(Duration.ofSeconds(90)), IN_FLIGHT);
      List<PublicationRequested> requests = new ArrayList<>();
      for (int i = 0; i < IN_FLIGHT; i++) {
        requests.add(
            TestKit.request(
                new PublicationKey("t1", "a-crash-" + i, "r-1", "crash-dest"), "Crash " + i));
      }
      try (ChildConsumer doomed = ChildConsumer.start(properties, "crash-1")) {
        requests.forEach(kit::send);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> dispatching(kit).equals(List.of(Integer.toString(IN_FLIGHT))));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> destination.simulator().articles().size() == IN_FLIGHT);
        // Renewed while the calls hang: the claims outlive their 15 s heartbeat timeout.
        await()
            .during(Duration.ofSeconds(17))
            .atMost(Duration.ofSeconds(20))
            .until(() -> dispatching(kit).equals(List.of(Integer.toString(IN_FLIGHT))));
        doomed.kill();
      }

      long restart = System.nanoTime();
      try (ChildConsumer restarted = ChildConsumer.start(properties, "crash-2")) {
        // 30 s from the restart, its start-up included.
        await()
            .atMost(Duration.ofSeconds(30).minusNanos(System.nanoTime() - restart))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    kit.query(
                            "SELECT count(*) FROM consumer.delivery WHERE destination = ?"
                                + " AND state IN ('PUBLISHED', 'FAILED', 'ABANDONED',"
                                + " 'NEEDS_RECONCILIATION')",
                            "crash-dest")
                        .equals(List.of(Integer.toString(IN_FLIGHT))));
      }
      for (PublicationRequested request : requests) {
        assertEquals(
            1,
            destination.simulator().articleCount(request.idempotencyKey()),
            request.key().toString());
      }
      assertEquals(IN_FLIGHT, destination.simulator().articles().size());
    }
  }

  private static List<String> dispatching(TestKit kit) {
    return kit.query(
        "SELECT count(*) FROM consumer.delivery WHERE destination = ? AND state = 'DISPATCHING'",
        "crash-dest");
  }
}
