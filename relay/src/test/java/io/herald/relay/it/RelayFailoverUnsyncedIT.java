package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's PostgreSQL failover without {@code synchronized_standby_slots} ({@link FailoverRun}),
 * what the relay's warning is about: the relay reports the slot not ready for a failover (metric,
 * log) before it; the standby is held back, the relay publishes what only the old primary had, and
 * after the promotion those events are in Kafka for commits the new primary lacks (phantoms). The
 * stored offsets then point past the WAL the standby had, at positions the new primary's own
 * commits take: the relay sees the new timeline and resumes from the slot, so none of those commits
 * is skipped.
 */
@HeraldIntegrationTest
class RelayFailoverUnsyncedIT {

  @Test
  void shouldLeavePhantomEventsWhenTheStandbyLaggedWithoutSynchronizedStandbySlots(
      StackContext context) throws Exception {
    FailoverRun.Outcome outcome = FailoverRun.failOverBehindTheStandby(context);

    assertThat(outcome.readyBefore()).as("herald_relay_slot_failover_ready before").isZero();
    assertThat(outcome.relayLog()).contains("is not ready for a PostgreSQL failover");
    assertThat(outcome.phantoms())
        .as("events for the rows written while the standby was held back")
        .containsAll(outcome.held().stream().map(UUID::toString).toList());
    assertThat(outcome.relayLog())
        .contains("PostgreSQL was promoted since this relay last streamed");
    assertThat(outcome.lost()).as("rows of the new primary that never reached Kafka").isEmpty();
    assertThat(outcome.relayAlive()).as("the relay recovered in the same process").isTrue();
  }
}
