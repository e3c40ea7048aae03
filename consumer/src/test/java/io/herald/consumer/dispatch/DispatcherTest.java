package io.herald.consumer.dispatch;

import static io.herald.consumer.delivery.FakeDeliveryQueue.claim;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.delivery.Attempt;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.FakeDeliveryQueue;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.FakeDestination;
import io.herald.consumer.destination.Outcome;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.policy.DeliveryPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
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
    return new DispatchSettings(
        "test-owner",
        4,
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        3,
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        Duration.ofMillis(20),
        Duration.ofSeconds(2));
  }
}
