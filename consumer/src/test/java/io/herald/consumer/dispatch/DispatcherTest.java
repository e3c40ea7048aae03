package io.herald.consumer.dispatch;

import static io.herald.consumer.delivery.FakeDeliveryQueue.claim;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.delivery.Attempt;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.FakeDeliveryQueue;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.FakeDestination;
import io.herald.consumer.destination.Outcome;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.pause.PauseGate;
import io.herald.consumer.policy.Capabilities;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.trace.DeliveryTracing;
import io.herald.devstack.HandClock;
import io.herald.devstack.telemetry.RecordedSpans;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DispatcherTest {

  private static final Duration BACKOFF = Duration.ofSeconds(7);

  private final FakeDeliveryQueue queue = new FakeDeliveryQueue();
  private final FakeDestination destination = new FakeDestination("dest", false, false);
  private final ConsumerMetrics metrics = new ConsumerMetrics(new SimpleMeterRegistry());
  private final DeliveryPolicy policy =
      new DeliveryPolicy(3, Duration.ofSeconds(1), (attempt, retryAfter) -> BACKOFF);
  private Dispatcher dispatcher;

  @AfterEach
  void stop() {
    if (dispatcher != null) {
      dispatcher.close();
    }
  }

  @Test
  void shouldRecordPublishedWithTheRemoteIdWhenTheDestinationCreatedTheArticle() {
    destination.answering(new Outcome.Published("art-42"));
    ClaimedDelivery claim = claim("dest", DeliveryState.DISPATCHING, 1, false);
    queue.due.add(claim);

    Transition recorded = dispatchOne();

    assertEquals(DeliveryState.PUBLISHED, recorded.to());
    assertEquals("art-42", recorded.remoteId());
    assertEquals(claim, destination.published.get(0));
    assertEquals(1.0, metrics.count("herald.consumer.transitions", "state", "PUBLISHED"));
  }

  @Test
  void shouldRecordRetryWaitWithThePolicysBackoffWhenTheDestinationSaysTryLater() {
    destination.answering(new Outcome.Retry("429", null));
    queue.due.add(claim("dest", DeliveryState.DISPATCHING, 1, false));

    Transition recorded = dispatchOne();

    assertEquals(DeliveryState.RETRY_WAIT, recorded.to());
    assertEquals(BACKOFF, recorded.retryIn());
  }

  @Test
  void shouldParkForAnOperatorWhenAttemptsRunOutAfterAnUncertainAttempt() {
    destination.answering(new Outcome.Retry("503", null));
    queue.due.add(claim("dest", DeliveryState.DISPATCHING, 3, true));

    assertEquals(DeliveryState.NEEDS_RECONCILIATION, dispatchOne().to());
  }

  @Test
  void shouldCountAndDiscardAResultWhoseClaimWasTakenOver() {
    queue.fenceEverything = true;
    queue.due.add(claim("dest", DeliveryState.DISPATCHING, 1, false));

    dispatchOne();

    await()
        .until(() -> metrics.count("herald.consumer.fenced.results", "destination", "dest") == 1);
    assertEquals(0.0, metrics.count("herald.consumer.transitions", "state", "PUBLISHED"));
  }

  @Test
  void shouldHandTheAttemptWithItsHttpStatusAndReasonToTheQueueWithTheResult() {
    destination.answering(new Outcome.Uncertain("HTTP 502: bad gateway", 502));
    queue.due.add(claim("dest", DeliveryState.DISPATCHING, 1, false));

    assertEquals(DeliveryState.UNCERTAIN, dispatchOne().to());
    Attempt attempt = queue.completed.get(0).attempt();
    assertEquals(Attempt.Kind.PUBLISH, attempt.kind());
    assertEquals("test-owner", attempt.owner());
    assertEquals("uncertain", attempt.outcome());
    assertEquals(502, attempt.httpStatus());
    assertEquals("HTTP 502: bad gateway", attempt.error());
    assertFalse(attempt.took().isNegative());
  }

  @Test
  void shouldKeepClaimingAfterTheDatabaseFailedOnce() {
    queue.claimFailures.set(1);
    queue.due.add(claim("dest", DeliveryState.DISPATCHING, 1, false));

    assertEquals(DeliveryState.PUBLISHED, dispatchOne().to());
    assertEquals(1.0, metrics.count("herald.consumer.loop.failures", "loop", "dispatch-claim"));
    assertTrue(dispatcher.healthy(Duration.ofMinutes(1)));
  }

  @Test
  void shouldCloseItsDestinationsAndReportUnhealthyWhenClosed() {
    dispatcher = start();
    dispatcher.close();

    assertTrue(destination.closed);
    assertFalse(dispatcher.healthy(Duration.ofMinutes(1)));
  }

  @Test
  void shouldClaimNothingForAPausedDestinationWhileAnotherIsDispatchedThenResume() {
    FakeDestination held = new FakeDestination("held", false, false);
    FakeDestination free = new FakeDestination("free", false, false);
    Set<String> paused = ConcurrentHashMap.newKeySet();
    paused.add("held");
    PauseGate pauses =
        new PauseGate() {
          @Override
          public boolean paused(String name) {
            return paused.contains(name);
          }

          @Override
          public void refresh() {}
        };
    ClaimedDelivery waiting = claim("held", DeliveryState.DISPATCHING, 1, false);
    queue.due.add(waiting);
    queue.due.add(claim("free", DeliveryState.DISPATCHING, 1, false));
    dispatcher =
        new Dispatcher(
            queue,
            Map.of("held", held, "free", free),
            settings(),
            policy,
            config -> Capabilities.of(config, Duration.ZERO),
            pauses,
            Clock.systemUTC(),
            metrics,
            DeliveryTracing.NOOP);
    dispatcher.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> free.published.size() == 1);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> held.published.isEmpty() && !queue.claimCalls.contains("held"));
    paused.remove("held");

    await().atMost(Duration.ofSeconds(10)).until(() -> held.published.size() == 1);
    assertEquals(waiting, held.published.get(0));
  }

  @Test
  void shouldNotMakeAnIdleDestinationClaimEachTimeACallOfAnotherEnds() {
    FakeDestination busy = new FakeDestination("busy", false, false);
    FakeDestination idle = new FakeDestination("idle", false, false);
    int backlog = 40;
    // A poll interval longer than the test: the busy lane is driven by its own calls ending alone.
    dispatchBacklog(backlog, Map.of("busy", busy, "idle", idle), settings(Duration.ofMinutes(1)));

    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == backlog);
    assertEquals(backlog, busy.published.size());
    // Its first claim came back empty; nothing woke it since (before: two claims per call ended).
    assertEquals(1, claims("idle"), "claims of the idle destination");
    // Two calls in flight at a time, each ending frees one permit: about one claim per delivery.
    assertTrue(claims("busy") <= backlog + 2, "claims of the busy destination: " + claims("busy"));

    dispatcher.wake();
    await().atMost(Duration.ofSeconds(10)).until(() -> claims("idle") == 2);
  }

  @Test
  void shouldClaimABatchAtATimeWhileCallsAreInFlightInsteadOfOneRowPerEndedCall() {
    int concurrency = 16;
    FakeDestination busy = new FakeDestination("busy", concurrency, Duration.ofMillis(2));
    int backlog = 320;
    dispatchBacklog(backlog, Map.of("busy", busy), settings(Duration.ofMinutes(1), concurrency));

    await().atMost(Duration.ofSeconds(20)).until(() -> queue.completed.size() == backlog);
    assertEquals(backlog, busy.published.size());
    // Each claim while calls were in flight took at least a quarter of the concurrency (4 rows);
    // one claim per ended call would have been about 320.
    int batch = Dispatcher.claimBatch(concurrency);
    assertEquals(4, batch);
    assertTrue(
        claims("busy") <= backlog / batch + 2, "claims of the busy destination: " + claims("busy"));
  }

  @Test
  void shouldClaimAFreePermitWithinTheLingerWhenSlowCallsKeepTheBatchFromFilling()
      throws Exception {
    int concurrency = 16;
    CountDownLatch release = new CountDownLatch(1);
    ClaimedDelivery late = claim("busy", DeliveryState.DISPATCHING, 1, false);
    // A remote API that takes its time, but for the late delivery.
    FakeDestination slow =
        publishingOnceReleased(concurrency, release, claim -> !claim.id().equals(late.id()));
    // 13 calls in flight leave 3 permits, fewer than a batch of 4.
    int blocked = 13;
    dispatchBacklog(blocked, Map.of("busy", slow), settings(Duration.ofMinutes(1), concurrency));
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.published.size() == blocked);

    queue.due.add(late);
    dispatcher.wake();

    try {
      // Claimed after the linger, while all 13 calls are still in flight.
      await().atMost(Duration.ofSeconds(5)).until(() -> slow.published.contains(late));
      assertEquals(1, queue.completed.size());
    } finally {
      release.countDown();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == blocked + 1);
  }

  @Test
  void shouldClaimAgainAfterAShortClaimOnlyWhenAResultReleasesADeliveryItHeldBack() {
    int concurrency = 8;
    CountDownLatch release = new CountDownLatch(1);
    ClaimedDelivery first = claim("busy", DeliveryState.DISPATCHING, 1, false);
    FakeDestination busy =
        publishingOnceReleased(concurrency, release, claim -> claim.id().equals(first.id()));
    queue.due.add(first);
    queue.releasingLater.add(first.id());
    // Three deliveries for eight permits: the first claim comes back short.
    dispatchBacklog(2, Map.of("busy", busy), settings(Duration.ofMinutes(1), concurrency));
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == 2);

    // Their ends freed permits, but the short claim said nothing else was due: no claim since.
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> claims("busy") == 1);

    // The next revision of the first one's article, held back while it is in flight: the wake of
    // the intake that stored it found nothing to claim. Only the first one's result frees it.
    ClaimedDelivery later = claim("busy", DeliveryState.DISPATCHING, 1, false);
    synchronized (queue) {
      queue.due.add(later);
    }
    release.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> busy.published.contains(later));
    assertEquals(2, claims("busy"));
  }

  @Test
  void shouldCallTheNextDeliveryWhileTheLastResultOfTheLaneIsBeingRecorded() {
    FakeDestination oneAtATime = new FakeDestination("busy", 1, Duration.ZERO);
    queue.recordingGate = new CountDownLatch(1);

    dispatchBacklog(2, Map.of("busy", oneAtATime), settings(Duration.ofMillis(20), 4));

    // One call at a time, and the first result's recording held: the second call goes anyway.
    await().atMost(Duration.ofSeconds(10)).until(() -> oneAtATime.published.size() == 2);
    assertTrue(queue.completed.isEmpty(), "no result recorded yet");
    queue.recordingGate.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == 2);
  }

  @Test
  void shouldMakeNoMoreCallsWhileEveryWorkerOfThePoolWaitsToRecordItsResult() {
    FakeDestination busy = new FakeDestination("busy", 4, Duration.ZERO);
    queue.recordingGate = new CountDownLatch(1);

    // Four calls allowed at once, but two workers: results waiting to be recorded hold them.
    dispatchBacklog(6, Map.of("busy", busy), settings(Duration.ofMillis(20), 2));

    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> busy.published.size() == 2);
    queue.recordingGate.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == 6);
  }

  @Test
  void shouldClaimAgainAsSoonAsAWorkerOfAFullPoolHasRecordedItsResult() {
    FakeDestination busy = new FakeDestination("busy", 4, Duration.ZERO);

    // One worker in the pool and a poll interval of a minute: each next claim waits for the
    // worker's recording to end, and only its end can wake the loop in time.
    dispatchBacklog(10, Map.of("busy", busy), settings(Duration.ofMinutes(1), 1));

    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == 10);
  }

  @Test
  void shouldClaimAsSoonAsAPermitIsFreeForALaneOfFourOrFewer() {
    assertEquals(1, Dispatcher.claimBatch(1));
    assertEquals(1, Dispatcher.claimBatch(4));
    assertEquals(2, Dispatcher.claimBatch(8));
    assertEquals(8, Dispatcher.claimBatch(32));
  }

  /**
   * Destination "busy", publishing every delivery; the calls of those {@code held} answer only once
   * {@code release} opens.
   */
  private static FakeDestination publishingOnceReleased(
      int concurrency, CountDownLatch release, Predicate<ClaimedDelivery> held) {
    return new FakeDestination("busy", concurrency, Duration.ZERO)
        .publishingWith(
            claim -> {
              if (held.test(claim)) {
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return new Outcome.Published("art-" + claim.id());
            });
  }

  /** Starts a dispatcher for {@code destinations} with {@code backlog} deliveries due at "busy". */
  private void dispatchBacklog(
      int backlog, Map<String, FakeDestination> destinations, DispatchSettings settings) {
    for (int i = 0; i < backlog; i++) {
      queue.due.add(claim("busy", DeliveryState.DISPATCHING, 1, false));
    }
    dispatcher =
        new Dispatcher(
            queue,
            destinations,
            settings,
            policy,
            config -> Capabilities.of(config, Duration.ZERO),
            PauseGate.NONE,
            Clock.systemUTC(),
            metrics,
            DeliveryTracing.NOOP);
    dispatcher.start();
  }

  private long claims(String destination) {
    synchronized (queue.claimCalls) {
      return queue.claimCalls.stream().filter(destination::equals).count();
    }
  }

  @Test
  void shouldStopClaimingWhenTheBreakerOpensAndRetryNoEarlierThanItsEndThenProbe() {
    HandClock clock = new HandClock();
    FakeDestination sick =
        new FakeDestination("dest", false, false, new BreakerSettings(2, Duration.ofMinutes(1)));
    sick.answering(new Outcome.Retry("HTTP 503", null, 503));
    for (int i = 0; i < 4; i++) {
      queue.due.add(claim("dest", DeliveryState.DISPATCHING, 1, false));
    }
    dispatcher =
        new Dispatcher(
            queue,
            Map.of("dest", sick),
            settings(),
            policy,
            config -> Capabilities.of(config, Duration.ZERO),
            PauseGate.NONE,
            clock,
            metrics,
            DeliveryTracing.NOOP);
    dispatcher.start();

    // The second failure opens the breaker; a third call may have started before it did.
    CircuitBreaker breaker = dispatcher.breakers().get("dest");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> breaker.state() == CircuitBreaker.State.OPEN);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> queue.completed.size() == sick.published.size());
    int sent = sick.published.size();
    assertTrue(sent >= 2 && sent < 4, "sent before the breaker held: " + sent);
    assertTrue(
        queue.completed.stream()
            .anyMatch(c -> c.transition().retryIn().equals(Duration.ofMinutes(1))),
        "the failure that opened the breaker waits for its end: " + queue.completed);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> sick.published.size() == sent);

    sick.answering(new Outcome.Published("art-1"));
    clock.advance(Duration.ofMinutes(1));

    await().atMost(Duration.ofSeconds(10)).until(() -> queue.completed.size() == 4);
    assertEquals(CircuitBreaker.State.CLOSED, breaker.state());
    assertEquals(1, breaker.snapshot().openedTotal());
  }

  @Test
  void shouldHandleEachDeliveryInAConsumerSpanUnderItsStoredTraceContext() {
    RecordedSpans recorded = new RecordedSpans();
    destination.answering(new Outcome.Retry("HTTP 503", null, 503));
    ClaimedDelivery stored = claim("dest", DeliveryState.DISPATCHING, 1, false);
    queue.due.add(
        new ClaimedDelivery(
            stored.id(),
            stored.jobId(),
            stored.key(),
            stored.idempotencyKey(),
            stored.content(),
            stored.claimToken(),
            stored.attempts(),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            null,
            null,
            stored.state()));
    dispatcher =
        new Dispatcher(
            queue,
            Map.of("dest", destination),
            settings(),
            policy,
            config -> Capabilities.of(config, Duration.ZERO),
            PauseGate.NONE,
            Clock.systemUTC(),
            metrics,
            DeliveryTracing.of(recorded.sdk));
    dispatcher.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> !recorded.spans().isEmpty());
    SpanData processing = recorded.named(DeliveryTracing.PROCESS);
    assertEquals(SpanKind.CONSUMER, processing.getKind());
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", processing.getTraceId());
    assertEquals("00f067aa0ba902b7", processing.getParentSpanId());
    assertEquals(
        stored.id().toString(), processing.getAttributes().get(DeliveryTracing.DELIVERY_ID));
    assertEquals(503L, processing.getAttributes().get(DeliveryTracing.HTTP_STATUS));
    assertEquals(
        "RETRY_WAIT",
        processing.getAttributes().get(AttributeKey.stringKey("herald.delivery.state")));
    assertEquals(StatusCode.ERROR, processing.getStatus().getStatusCode());
  }

  private Transition dispatchOne() {
    dispatcher = start();
    await().atMost(Duration.ofSeconds(10)).until(() -> !queue.completed.isEmpty());
    return queue.completed.get(0).transition();
  }

  private Dispatcher start() {
    Dispatcher started =
        new Dispatcher(queue, Map.of("dest", destination), settings(), policy, metrics);
    started.start();
    return started;
  }

  private static DispatchSettings settings() {
    return settings(Duration.ofMillis(20));
  }

  private static DispatchSettings settings(Duration pollInterval) {
    return settings(pollInterval, 4);
  }

  private static DispatchSettings settings(Duration pollInterval, int poolSize) {
    return new DispatchSettings(
        "test-owner",
        poolSize,
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        3,
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        pollInterval,
        Duration.ofSeconds(2),
        DispatchSettings.DEFAULT_RECORD_BATCH_SIZE);
  }
}
