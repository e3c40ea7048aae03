package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventHandoffTest {

  @Test
  void shouldReturnTheFirstEventAsSoonAsItIsEnqueued() throws Exception {
    EventHandoff<String> handoff = new EventHandoff<>(16, Duration.ZERO);
    CompletableFuture<List<String>> poll = drainAsync(handoff, 8);
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !poll.isDone());

    handoff.enqueue("first");

    // Well inside the minute it would otherwise wait: the enqueue woke it.
    assertThat(poll.get(10, TimeUnit.SECONDS)).containsExactly("first");
  }

  @Test
  void shouldHandOverTheFirstEventAtOnceWhenNoDrainPrecededItWithinTheLinger() throws Exception {
    EventHandoff<String> handoff = new EventHandoff<>(16, Duration.ofHours(1));
    handoff.enqueue("first");

    // The hour's linger counts from a previous drain; there is none.
    assertThat(handoff.awaitAndDrain(8, Duration.ZERO)).containsExactly("first");
  }

  @Test
  void shouldHoldEventsThatFollowADrainWithinTheLingerUntilAFullBatchGathers() throws Exception {
    EventHandoff<String> handoff = new EventHandoff<>(16, Duration.ofHours(1));
    handoff.enqueue("a");
    assertThat(handoff.awaitAndDrain(3, Duration.ZERO)).containsExactly("a");
    handoff.enqueue("b");

    CompletableFuture<List<String>> poll = drainAsync(handoff, 3);
    handoff.enqueue("c");
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !poll.isDone());
    handoff.enqueue("d");

    assertThat(poll.get(10, TimeUnit.SECONDS)).containsExactly("b", "c", "d");
  }

  @Test
  void shouldHandOverWhatGatheredOnceTheLingerAfterTheLastDrainHasPassed() throws Exception {
    Duration linger = Duration.ofMillis(300);
    EventHandoff<String> handoff = new EventHandoff<>(16, linger);
    handoff.enqueue("a");
    long draining = System.nanoTime();
    handoff.awaitAndDrain(3, Duration.ZERO);
    handoff.enqueue("b");

    assertThat(handoff.awaitAndDrain(3, Duration.ofMinutes(1))).containsExactly("b");
    assertThat(Duration.ofNanos(System.nanoTime() - draining)).isGreaterThanOrEqualTo(linger);
  }

  @Test
  void shouldReturnEmptyWhenNothingArrivesInTime() throws Exception {
    EventHandoff<String> handoff = new EventHandoff<>(16, Duration.ZERO);

    assertThat(handoff.awaitAndDrain(8, Duration.ofMillis(20))).isEmpty();
  }

  @Test
  void shouldDrainAtMostOneBatchInQueueOrder() throws Exception {
    EventHandoff<String> handoff = new EventHandoff<>(16, Duration.ZERO);
    for (int i = 0; i < 5; i++) {
      handoff.enqueue("e" + i);
    }

    assertThat(handoff.awaitAndDrain(3, Duration.ZERO)).containsExactly("e0", "e1", "e2");
    assertThat(handoff.size()).isEqualTo(2);
    assertThat(handoff.poll()).isEqualTo("e3");
    assertThat(handoff.awaitAndDrain(3, Duration.ZERO)).containsExactly("e4");
    assertThat(handoff.poll()).isNull();
  }

  @Test
  void shouldLoseNothingBetweenAProducerAndAConsumerRacing() throws Exception {
    EventHandoff<Integer> handoff = new EventHandoff<>(1024, Duration.ZERO);
    int total = 200_000;
    Thread producer =
        Thread.ofPlatform()
            .start(
                () -> {
                  for (int i = 0; i < total; i++) {
                    handoff.enqueue(i);
                  }
                });
    int expected = 0;
    while (expected < total) {
      for (int value : handoff.awaitAndDrain(97, Duration.ofSeconds(5))) {
        assertThat(value).isEqualTo(expected);
        expected++;
      }
    }
    producer.join();
    assertThat(handoff.size()).isZero();
  }

  private static CompletableFuture<List<String>> drainAsync(EventHandoff<String> handoff, int max) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return handoff.awaitAndDrain(max, Duration.ofMinutes(1));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        });
  }
}
