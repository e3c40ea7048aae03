package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stops with an immediate shutdown (SIGQUIT, as a crash would end it) under a streaming
 * relay and a steady write load, and comes back. The relay loses its leader lock session with the
 * server; it stops its engine, stands by in the same process and takes the lock again once the
 * server is back, streaming every acknowledged row without being restarted (scenario F7).
 */
@HeraldIntegrationTest
class RelayDatabaseRestartIT {

  /**
   * The lock's backoff (at most the dead-peer timeout, 10 s), the slot checks, the engine start.
   */
  private static final Duration RECOVERY_BOUND = Duration.ofMinutes(2);

  private final StackContext context;

  RelayDatabaseRestartIT(StackContext context) {
    this.context = context;
  }

  @AfterEach
  void restoreTheDatabase() {
    // A no-op unless the test failed while PostgreSQL was down: the next test needs it.
    context.stack().postgres().start();
  }

  @Test
  void shouldStandByAndStreamAgainInTheSameProcessWhenPostgresRestartsAfterAnImmediateShutdown()
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "db-restart");
    try (EventCollector events = fixture.collect(fixture.publicationEvents);
        RelayFixture.Relay relay = fixture.start()) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> relay.get("/health").body().contains("STREAMING"));
      // Started once the relay streams, so that the load runs before, through and after the outage.
      try (OutageWriter writer =
          new OutageWriter(fixture.writerOutbox(10), Scale.of(3_000), 10, 40)) {
        Awaitility.await()
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> {
                  events.poll();
                  return events.ids().size() > 200;
                });
        restartUnderLoad(relay, writer, events);
      }
    }
  }

  private void restartUnderLoad(
      RelayFixture.Relay relay, OutageWriter writer, EventCollector events) throws Exception {
    long pid = relay.pid();
    int failuresBefore = writer.failures();

    long stopped = System.nanoTime();
    context.stack().postgres().stopImmediately();
    try {
      // The relay notices the lost lock session within a poll interval, the writer fails.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  !relay.get("/health").body().contains("STREAMING")
                      && writer.failures() > failuresBefore);
    } finally {
      context.stack().postgres().start();
    }
    Duration down = Duration.ofNanos(System.nanoTime() - stopped);
    int acknowledgedBeforeRestart = writer.acknowledged();

    Awaitility.await()
        .atMost(RECOVERY_BOUND)
        .pollInterval(Duration.ofMillis(100))
        .failFast("the relay exited", () -> !relay.process().isAlive())
        .until(() -> relay.get("/health").body().contains("STREAMING"));
    Duration streamingAgain = Duration.ofNanos(System.nanoTime() - stopped);

    List<UUID> acknowledged = writer.finish();
    events.awaitIds(acknowledged, Duration.ofMinutes(3)).drain(Duration.ofSeconds(1));
    int uncertainArrived = events.assertIdsBetween(acknowledged, writer.uncertain());
    System.out.printf(
        "RelayDatabaseRestartIT: PostgreSQL down %d ms (immediate shutdown), relay streaming"
            + " again %d ms after the stop; %d acknowledged rows (%d before the restart), 0 lost,"
            + " %d duplicates; %d transactions failed during the outage, %d of their %d rows"
            + " arrived%n",
        down.toMillis(),
        streamingAgain.toMillis(),
        acknowledged.size(),
        acknowledgedBeforeRestart,
        events.duplicates(),
        writer.failures(),
        uncertainArrived,
        writer.uncertain().size());
    events.assertCommitOrderPerKey();
    assertThat(relay.process().isAlive()).as("the relay recovered in process").isTrue();
    assertThat(relay.pid()).isEqualTo(pid);
    assertThat(relay.metric("herald_relay_leadership_lost_total")).isEqualTo(1.0);
    assertThat(relay.metric("herald_relay_streaming")).isEqualTo(1.0);
    assertThat(relay.metric("herald_relay_standby")).isEqualTo(0.0);
    String log = relay.process().log();
    assertThat(count(log, "Lost the leader lock connection"))
        .as("lost-lock lines in the relay log")
        .isEqualTo(1);
    assertThat(count(log, "Could not try the leader lock"))
        .as("lines about the unreachable database, logged once per outage, not per try")
        .isLessThanOrEqualTo(1);
  }

  private static int count(String text, String phrase) {
    int count = 0;
    for (int at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
      count++;
    }
    return count;
  }
}
