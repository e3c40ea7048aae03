package io.herald.consumer.dispatch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.FakeDeliveryQueue;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeaseKeeperTest {

  private static final Duration HEARTBEAT = Duration.ofSeconds(15);
  private static final Duration LEASE = Duration.ofMinutes(2);

  private final FakeDeliveryQueue queue = new FakeDeliveryQueue();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ConsumerMetrics metrics = new ConsumerMetrics(registry);
  private final LeaseKeeper keeper =
      new LeaseKeeper(queue, "owner-1", HEARTBEAT, LEASE, nanos::get, metrics);
  private final List<Call> calls = new ArrayList<>();

  /** A caller blocked in its destination call until it ends or is interrupted. */
  private static final class Call {
    final CountDownLatch done = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    final Thread thread =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    done.await();
                  } catch (InterruptedException e) {
                    interrupted.set(true);
                  }
                });
  }

  @AfterEach
  void endCalls() {
    calls.forEach(call -> call.done.countDown());
  }

  private LeaseKeeper.Held hold(ClaimedDelivery claim) {
    Call call = new Call();
    calls.add(call);
    return keeper.hold(claim, nanos.get(), call.thread);
  }

  private Call call(int i) {
    return calls.get(i);
  }

  private void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  @Test
  void shouldRenewEveryClaimInFlightInOneStatementWithItsToken() {
    ClaimedDelivery first = FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false);
    ClaimedDelivery second = FakeDeliveryQueue.claim("dest-b", DeliveryState.DISPATCHING, 2, false);
    hold(first);
    hold(second);

    keeper.renewOnce();

    assertEquals(
        List.of(Map.of(first.id(), first.claimToken(), second.id(), second.claimToken())),
        queue.renewals);
    assertEquals(2.0, metrics.count("herald.consumer.lease.renewals", "result", "renewed"));
  }

  @Test
  void shouldLeaseForTheHeartbeatTimeoutButNeverLongerThanTheLease() {
    assertEquals(HEARTBEAT, keeper.horizon());
    assertEquals(
        Duration.ofSeconds(3),
        new LeaseKeeper(queue, "o", HEARTBEAT, Duration.ofSeconds(3), nanos::get, metrics)
            .horizon());
  }

  @Test
  void shouldCancelTheCallWhenItsClaimWasTakenOver() {
    ClaimedDelivery claim = FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false);
    LeaseKeeper.Held held = hold(claim);
    queue.takenOver.add(claim.id());

    keeper.renewOnce();

    await().atMost(Duration.ofSeconds(5)).untilTrue(call(0).interrupted);
    assertEquals(1.0, metrics.count("herald.consumer.lease.renewals", "result", "fenced"));
    assertTrue(held.endCall(), "the call reports it was cancelled");
  }

  @Test
  void shouldNotCallAClaimTakenOverWhenItsCallHasEndedAndItsResultIsBeingRecorded() {
    ClaimedDelivery claim = FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false);
    LeaseKeeper.Held held = hold(claim);
    // The call returned; its result is recorded (in a group), which ends the claim in the
    // database before the dispatcher releases it here.
    assertFalse(held.endCall());
    queue.takenOver.add(claim.id());

    keeper.renewOnce();

    assertEquals(0.0, metrics.count("herald.consumer.lease.renewals", "result", "fenced"));
    assertEquals(1.0, metrics.count("herald.consumer.lease.renewals", "result", "ended"));
    assertTrue(
        registry.find("herald.consumer.lease.cancelled").counters().isEmpty(), "none cancelled");
    assertFalse(held.endCall(), "nothing was cancelled");
  }

  @Test
  void shouldKeepTheCallWhileRenewalsFailUntilOneRenewalPeriodBeforeItsLeaseEnds() {
    hold(FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false));
    queue.renewFailures.set(100);

    advance(Duration.ofSeconds(5));
    keeper.renewOnce();
    advance(Duration.ofMillis(4_900));
    keeper.renewOnce();
    assertFalse(call(0).interrupted.get(), "9.9 s into a 15 s lease renewed every 5 s");

    advance(Duration.ofMillis(100));
    keeper.renewOnce();

    await().atMost(Duration.ofSeconds(5)).untilTrue(call(0).interrupted);
    assertEquals(1.0, registry.get("herald.consumer.lease.cancelled").counter().count());
    assertEquals(3.0, metrics.count("herald.consumer.lease.renewals", "result", "failed"));
  }

  @Test
  void shouldMeasureTheDeadlineFromTheLastSuccessfulRenewal() {
    hold(FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false));
    advance(Duration.ofSeconds(5));
    keeper.renewOnce(); // renewed: the deadline is now 5 s + 15 s from the claim
    queue.renewFailures.set(100);

    advance(Duration.ofMillis(9_900));
    keeper.renewOnce();
    assertFalse(call(0).interrupted.get());

    advance(Duration.ofMillis(100));
    keeper.renewOnce();
    await().atMost(Duration.ofSeconds(5)).untilTrue(call(0).interrupted);
  }

  @Test
  void shouldNeitherRenewNorInterruptACallThatHasEnded() throws Exception {
    LeaseKeeper.Held held =
        hold(FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false));
    assertFalse(held.endCall());
    keeper.release(held);
    queue.renewFailures.set(100);

    advance(Duration.ofMinutes(1));
    keeper.renewOnce();

    assertEquals(List.of(), queue.renewals);
    assertEquals(0, keeper.size());
    call(0).thread.join(Duration.ofMillis(200));
    assertFalse(call(0).interrupted.get());
  }

  @Test
  void shouldStopRenewingAClaimThatWouldOutliveTheLease() {
    hold(FakeDeliveryQueue.claim("dest-a", DeliveryState.DISPATCHING, 1, false));

    advance(LEASE.minus(HEARTBEAT).plusMillis(1));
    keeper.renewOnce();

    assertEquals(List.of(), queue.renewals);
    await().atMost(Duration.ofSeconds(5)).untilTrue(call(0).interrupted);
  }
}
