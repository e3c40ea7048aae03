package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

@HeraldIntegrationTest
class RelayStandbyIT {

  /** relay.standby.poll-interval (500ms in the fixture) plus the engine's start on a busy box. */
  private static final Duration TAKEOVER_BOUND = Duration.ofSeconds(60);

  @Test
  void shouldHandOverToTheStandbyWhenTheActiveRelayIsKilledWithNothingLost(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "standby");
    try (EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer =
            new BackgroundWriter(fixture.writerOutbox(10), Scale.of(3_000), 10, 40);
        RelayFixture.Relay active = fixture.start()) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> active.get("/health").body().contains("STREAMING"));
      try (RelayFixture.Relay standby = fixture.start()) {
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> standby.get("/health").body().contains("STANDBY"));
        assertThat(standby.get("/health").status()).isEqualTo(200);
        assertThat(active.get("/health").body()).contains("STREAMING");
        assertThat(active.metric("herald_relay_streaming")).isEqualTo(1.0);
        assertThat(standby.metric("herald_relay_streaming")).isEqualTo(0.0);

        int seenAtKill = events.poll().size();
        active.process().kill();
        Takeover takeover = Takeover.await(standby, events, seenAtKill, TAKEOVER_BOUND);

        List<UUID> ids = writer.finish();
        events.awaitIds(ids, Duration.ofMinutes(3)).drain(Duration.ofSeconds(1));
        System.out.printf(
            "RelayStandbyIT: standby streaming %d ms after the kill, first event from it after %d"
                + " ms; %d events, %d duplicates%n",
            takeover.streaming().toMillis(),
            takeover.firstEvent().toMillis(),
            ids.size(),
            events.duplicates());
        events.assertIdsExactly(ids);
        events.assertCommitOrderPerKey();
        assertThat(standby.metric("herald_relay_events_published_total")).isPositive();
      }
    }
  }
}
