package io.herald.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PeriodicTaskTest {

  @Test
  void shouldRunRoundsUntilClosed() {
    AtomicInteger rounds = new AtomicInteger();
    PeriodicTask task =
        PeriodicTask.named("test-rounds")
            .every(Duration.ofMillis(10))
            .build(rounds::incrementAndGet);

    task.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() >= 3);
    assertTrue(task.healthy(Duration.ofSeconds(10)));
    task.close();
    int afterClose = rounds.get();

    assertFalse(task.healthy(Duration.ofSeconds(10)));
    await().during(Duration.ofMillis(100)).until(() -> rounds.get() == afterClose);
  }

  @Test
  void shouldCountAFailedRoundAndRunTheNext() {
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger rounds = new AtomicInteger();
    try (PeriodicTask task =
        PeriodicTask.named("test-failures")
            .every(Duration.ofMillis(10))
            .onFailure(failures::incrementAndGet)
            .build(
                () -> {
                  if (rounds.incrementAndGet() == 1) {
                    throw new IllegalStateException("first round fails");
                  }
                })) {
      task.start();

      await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() >= 2);
      assertThat(failures.get()).isEqualTo(1);
    }
  }

  @Test
  void shouldWaitFirstAfterBeforeTheFirstRoundButStopAtOnceWhenClosed() {
    AtomicInteger rounds = new AtomicInteger();
    PeriodicTask task =
        PeriodicTask.named("test-first-after")
            .every(Duration.ofHours(1))
            .firstAfter(Duration.ofHours(1))
            .build(rounds::incrementAndGet);
    task.start();

    long start = System.nanoTime();
    task.close();

    assertThat(rounds.get()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void shouldLetTheRunningRoundSeeTheStopAndFinish() throws InterruptedException {
    CountDownLatch inRound = new CountDownLatch(1);
    PeriodicTask[] holder = new PeriodicTask[1];
    holder[0] =
        PeriodicTask.named("test-stop")
            .every(Duration.ofHours(1))
            .build(
                () -> {
                  inRound.countDown();
                  while (!holder[0].stopping()) {
                    Thread.onSpinWait(); // one "batch" per iteration
                  }
                });
    holder[0].start();
    assertTrue(inRound.await(10, TimeUnit.SECONDS));

    holder[0].close();

    assertTrue(holder[0].stopping());
    assertFalse(holder[0].healthy(Duration.ofHours(1)));
  }

  @Test
  void shouldReportUnhealthyWhenNoRoundStartedWithinMaxSilence() {
    CountDownLatch release = new CountDownLatch(1);
    try (PeriodicTask task =
        PeriodicTask.named("test-silence")
            .every(Duration.ofMillis(10))
            .stopWait(Duration.ofSeconds(5))
            .build(release::await)) {
      task.start();

      await().atMost(Duration.ofSeconds(10)).until(() -> !task.healthy(Duration.ofMillis(50)));
      release.countDown();
    }
  }

  @Test
  void shouldRefuseASecondStart() {
    try (PeriodicTask task =
        PeriodicTask.named("test-twice").every(Duration.ofHours(1)).build(() -> {})) {
      task.start();

      assertThrows(IllegalStateException.class, task::start);
    }
  }
}
