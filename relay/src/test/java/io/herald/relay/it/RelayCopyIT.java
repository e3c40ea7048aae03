package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Outbox rows loaded with COPY (one WAL record per row only thanks to the schema's row trigger;
 * dbz#1554 lost rows sharing a position on restart), with the relay stopped mid-stream.
 */
@HeraldIntegrationTest
class RelayCopyIT {

  private static final Map<String, String> SMALL_BATCHES =
      Map.of("debezium.source.max.batch.size", "64");

  @Test
  void shouldLoseNoCopiedRowWhenTheRelayIsStoppedOrKilledMidStream(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "copy");
    OutboxRows rows = fixture.writerOutbox(25);
    List<String> rounds = List.of("SIGTERM", "SIGKILL", "SIGTERM", "SIGKILL");
    int perRound = Scale.of(20_000) / rounds.size();
    List<UUID> all = new ArrayList<>();
    try (EventCollector events = fixture.collect(fixture.publicationEvents)) {
      RelayFixture.Relay relay = fixture.start(SMALL_BATCHES);
      for (String stop : rounds) {
        int seenBefore = events.ids().size();
        List<UUID> ids = rows.copy(perRound);
        all.addAll(ids);
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
          assertThat(relay.process().terminate()).isIn(0, 143);
        }
        int seenAtStop = events.ids().size() - seenBefore;
        relay = fixture.start(SMALL_BATCHES);
        events.awaitIds(ids, Duration.ofMinutes(2));
        System.out.printf(
            "RelayCopyIT: COPY of %d rows, %s after %d had arrived: none lost%n",
            perRound, stop, seenAtStop);
      }
      events.drain(Duration.ofSeconds(1));
      System.out.printf(
          "RelayCopyIT: %d copied rows over %d stop/restart rounds, %d duplicates%n",
          all.size(), rounds.size(), events.duplicates());
      events.assertIdsExactly(all);
      relay.process().terminate();
    }
  }
}
