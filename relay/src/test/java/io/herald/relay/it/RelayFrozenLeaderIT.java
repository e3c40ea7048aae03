package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The streaming relay freezes (SIGSTOP: a paused process or VM). Its kernel still answers TCP
 * keepalives, so only the lock session's idle timeout frees the lock; the standby takes over, ends
 * the frozen leader's replication session and streams with nothing lost. Thawed (SIGCONT), the
 * former leader finds its sessions gone and stands by again instead of streaming beside the new
 * one.
 */
@HeraldIntegrationTest
class RelayFrozenLeaderIT {

  private static final Duration DEAD_PEER_TIMEOUT = Duration.ofSeconds(3);

  /** The dead-peer timeout, the standby's poll and the engine's start on a busy box. */
  private static final Duration TAKEOVER_BOUND = Duration.ofSeconds(60);

  @Test
  void shouldHandOverToTheStandbyWhenTheStreamingRelayFreezes(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "frozen");
    Map<String, String> settings =
        Map.of("relay.standby.dead-peer-timeout", DEAD_PEER_TIMEOUT.toSeconds() + "s");
    try (EventCollector events = fixture.collect(fixture.publicationEvents);
        BackgroundWriter writer =
            new BackgroundWriter(fixture.writerOutbox(10), Scale.of(3_000), 10, 40);
        RelayFixture.Relay active = fixture.start(settings)) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> active.get("/health").body().contains("STREAMING"));
      try (RelayFixture.Relay standby = fixture.start(settings)) {
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> standby.get("/health").body().contains("STANDBY"));

        int seenAtFreeze = events.poll().size();
        signal("STOP", active.process().pid());
        Takeover takeover = Takeover.await(standby, events, seenAtFreeze, TAKEOVER_BOUND);

        List<UUID> ids = writer.finish();
        events.awaitIds(ids, Duration.ofMinutes(3));
        signal("CONT", active.process().pid());
        // Thawed, the former leader finds its lock session gone: it stops its engine and stands by
        // again in the same process, behind the new leader.
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .failFast("the thawed former leader exited", () -> !active.process().isAlive())
            .until(() -> active.get("/health").body().contains("STANDBY"));
        events.drain(Duration.ofSeconds(1));
        System.out.printf(
            "RelayFrozenLeaderIT: standby streaming %d ms after the freeze (dead-peer timeout %d"
                + " s), first event from it after %d ms; thawed leader back to standby; %d events,"
                + " %d duplicates%n",
            takeover.streaming().toMillis(),
            DEAD_PEER_TIMEOUT.toSeconds(),
            takeover.firstEvent().toMillis(),
            ids.size(),
            events.duplicates());
        assertThat(active.get("/health").body()).contains("lost the leader lock");
        assertThat(active.metric("herald_relay_streaming")).isEqualTo(0.0);
        assertThat(active.metric("herald_relay_standby")).isEqualTo(1.0);
        assertThat(active.metric("herald_relay_leadership_lost_total")).isEqualTo(1.0);
        events.assertIdsExactly(ids);
        events.assertCommitOrderPerKey();
        assertThat(standby.get("/health").body()).contains("STREAMING");
        assertThat(active.process().terminate())
            .as("the former leader's exit code after SIGTERM")
            .isIn(0, 143);
      }
    }
  }

  private static void signal(String name, long pid) throws IOException, InterruptedException {
    // The shell's own kill: present wherever a shell is, unlike procps.
    Process kill = new ProcessBuilder("sh", "-c", "kill -" + name + " " + pid).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -" + name + " " + pid).isZero();
  }
}
