package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A relay killed with SIGKILL (no shutdown hook, no offset flush) or stopped with SIGTERM in the
 * middle of one multi-row INSERT's stream. Repeated kills under a steady load are the fault class
 * F1 (faults module, {@code RelayKillsIT}: the whole pipeline, lost and order checked per article,
 * then {@code herald audit}), which replaced this class's own repeated-kill test.
 */
@HeraldIntegrationTest
class RelayCrashIT {

  /** Small engine batches, so a kill lands in the middle of a stream. */
  private static final Map<String, String> SMALL_BATCHES =
      Map.of("debezium.source.max.batch.size", "64");

  private static RelayFixture fixture;

  @BeforeAll
  static void setUp(StackContext context) {
    fixture = new RelayFixture(context, "crash");
  }

  @Test
  void shouldLoseNothingOfAMultiRowInsertWhenRestartedInTheMiddleOfItsStream() throws Exception {
    OutboxRows rows = fixture.writerOutbox(10);
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      for (String stop : List.of("SIGKILL", "SIGTERM")) {
        events.drain(Duration.ofMillis(300));
        int seenBefore = events.ids().size();
        RelayFixture.Relay relay = fixture.start(SMALL_BATCHES);
        List<UUID> ids = rows.insertMultiRow(Scale.of(5_000));
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(5))
            .until(
                () -> {
                  events.poll();
                  return events.ids().size() > seenBefore;
                });
        if (stop.equals("SIGKILL")) {
          relay.process().kill();
        } else {
          relay.process().terminate();
        }
        int seenAtStop = events.ids().size() - seenBefore;
        try (RelayFixture.Relay restarted = fixture.start(SMALL_BATCHES)) {
          events.awaitIds(ids, Duration.ofMinutes(2)).drain(Duration.ofMillis(500));
          System.out.printf(
              "RelayCrashIT: multi-row INSERT of %d rows, %s after %d arrived: all arrived, %d"
                  + " duplicates so far%n",
              ids.size(), stop, seenAtStop, events.duplicates());
          assertThat(events.ids()).containsAll(ids.stream().map(UUID::toString).toList());
          restarted.process().terminate();
        }
      }
    }
  }
}
