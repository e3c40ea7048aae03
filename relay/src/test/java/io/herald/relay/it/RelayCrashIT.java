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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Relays killed with SIGKILL (no shutdown hook, no offset flush) while events stream. */
@HeraldIntegrationTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
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
  @Order(1)
  void shouldLoseNoEventWhenTheRelayIsKilledMidStreamAndRestartedRepeatedly() throws Exception {
    int total = Scale.of(6_000);
    int kills = 3;
    try (EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer = new BackgroundWriter(fixture.writerOutbox(20), total, 10, 40)) {
      for (int round = 1; round <= kills; round++) {
        int seenBefore = events.ids().size();
        RelayFixture.Relay relay = fixture.start(SMALL_BATCHES);
        // Kill only once this relay has published something, and long before the stream ends.
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(20))
            .until(
                () -> {
                  events.poll();
                  return events.ids().size() > seenBefore + 200;
                });
        relay.process().kill();
        System.out.printf(
            "RelayCrashIT: round %d killed relay with %d of %d written rows seen%n",
            round, events.ids().size(), writer.size());
      }
      List<UUID> ids = writer.finish();
      try (RelayFixture.Relay last = fixture.start(SMALL_BATCHES)) {
        events.awaitIds(ids, Duration.ofMinutes(3)).drain(Duration.ofSeconds(1));
        System.out.printf(
            "RelayCrashIT: %d events after %d SIGKILLs, %d duplicates%n",
            ids.size(), kills, events.duplicates());
        events.assertIdsExactly(ids);
        events.assertCommitOrderPerKey();
        last.process().terminate();
      }
    }
  }

  @Test
  @Order(2)
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
