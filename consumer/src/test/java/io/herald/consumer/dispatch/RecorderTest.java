package io.herald.consumer.dispatch;

import static io.herald.consumer.delivery.FakeDeliveryQueue.claim;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.delivery.Attempt;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.Completion;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.FakeDeliveryQueue;
import io.herald.consumer.delivery.Recorded;
import io.herald.consumer.delivery.Transition;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecorderTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final FakeDeliveryQueue queue = new FakeDeliveryQueue();
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void stop() {
    workers.shutdownNow();
  }

  @Test
  void shouldRecordAResultAtOnceAndAloneWhenNothingElseIsBeingRecorded() throws Exception {
    Recorder recorder = new Recorder(queue, 64);
    ClaimedDelivery claim = claim("dest", DeliveryState.DISPATCHING, 1, false);

    Optional<Recorded> recorded = recorder.record(published(claim));

    assertEquals(DeliveryState.PUBLISHED, recorded.orElseThrow().delivery().state());
    assertEquals(List.of(1), queue.groups);
  }

  @Test
  void shouldRecordTheResultsThatEndWhileAnotherIsBeingRecordedInOneTransaction() throws Exception {
    Recorder recorder = new Recorder(queue, 64);

    List<Future<Optional<Recorded>>> results = whileTheFirstIsRecorded(recorder, 4);

    for (Future<Optional<Recorded>> result : results) {
      assertEquals(
          DeliveryState.PUBLISHED,
          result.get(10, TimeUnit.SECONDS).orElseThrow().delivery().state());
    }
    assertEquals(List.of(1, 4), queue.groups);
    assertEquals(5, queue.completed.size());
  }

  @Test
  void shouldRecordNoMoreThanTheBatchSizeInOneTransaction() throws Exception {
    Recorder recorder = new Recorder(queue, 2);

    List<Future<Optional<Recorded>>> results = whileTheFirstIsRecorded(recorder, 5);

    for (Future<Optional<Recorded>> result : results) {
      result.get(10, TimeUnit.SECONDS);
    }
    assertEquals(List.of(1, 2, 2, 1), queue.groups);
  }

  @Test
  void shouldRecordEachResultAloneWhenTheDatabaseRefusesTheirGroup() throws Exception {
    Recorder recorder = new Recorder(queue, 64);
    List<ClaimedDelivery> claims = new ArrayList<>();

    List<Future<Optional<Recorded>>> results =
        whileTheFirstIsRecorded(recorder, 3, claims, () -> queue.refused.add(claims.get(2).id()));

    assertTrue(results.get(1).get(10, TimeUnit.SECONDS).isPresent());
    ExecutionException refused =
        assertThrows(ExecutionException.class, () -> results.get(2).get(10, TimeUnit.SECONDS));
    assertEquals("23514", assertInstanceOf(SQLException.class, refused.getCause()).getSQLState());
    assertTrue(results.get(3).get(10, TimeUnit.SECONDS).isPresent());
    // The first alone, the group of three refused, then each of the three alone.
    assertEquals(List.of(1, 3, 1, 1, 1), queue.groups);
    assertEquals(3, queue.completed.size(), "the first and the two the database did not refuse");
  }

  @Test
  void shouldFailTheWholeGroupAtOnceWhenTheDatabaseIsUnavailable() throws Exception {
    Recorder recorder = new Recorder(queue, 64);

    List<Future<Optional<Recorded>>> results =
        whileTheFirstIsRecorded(
            recorder, 3, new ArrayList<>(), () -> queue.recordingUnavailable = true);

    for (Future<Optional<Recorded>> result : results) {
      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
      assertEquals("08006", assertInstanceOf(SQLException.class, failed.getCause()).getSQLState());
    }
    // No result tried alone: each would only wait for the same unreachable database.
    assertEquals(List.of(1, 3), queue.groups);
    assertEquals(0, queue.completed.size());
  }

  private List<Future<Optional<Recorded>>> whileTheFirstIsRecorded(Recorder recorder, int others)
      throws Exception {
    return whileTheFirstIsRecorded(recorder, others, new ArrayList<>(), () -> {});
  }

  /**
   * Records a first result whose transaction is held open until {@code others} more results are
   * queued behind it and {@code meanwhile} has run; then lets it finish. The first result's future
   * comes first, {@code claims} gets every claim in order.
   */
  private List<Future<Optional<Recorded>>> whileTheFirstIsRecorded(
      Recorder recorder, int others, List<ClaimedDelivery> claims, Runnable meanwhile)
      throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    queue.recordingGate = gate;
    List<Future<Optional<Recorded>>> results = new ArrayList<>();
    ClaimedDelivery first = claim("dest", DeliveryState.DISPATCHING, 1, false);
    claims.add(first);
    results.add(workers.submit(() -> recorder.record(published(first))));
    await().atMost(WAIT).until(() -> queue.groups.size() == 1);
    for (int i = 0; i < others; i++) {
      ClaimedDelivery next = claim("dest", DeliveryState.DISPATCHING, 1, false);
      claims.add(next);
      results.add(workers.submit(() -> recorder.record(published(next))));
    }
    await().atMost(WAIT).until(() -> recorder.queued() == others);
    meanwhile.run();
    gate.countDown();
    return results;
  }

  private static Completion published(ClaimedDelivery claim) {
    return new Completion(
        claim,
        Transition.published("remote-" + claim.id(), null),
        new Attempt(Attempt.Kind.PUBLISH, "owner", Duration.ofMillis(1), "published", 201, null));
  }
}
