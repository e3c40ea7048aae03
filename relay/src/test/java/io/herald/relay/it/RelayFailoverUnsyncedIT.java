package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's PostgreSQL failover without {@code synchronized_standby_slots} ({@link FailoverRun}):
 * the relay reports the slot not ready for a failover (metric, log) before it, and the figures
 * printed show what the failover did (phantom events for commits the standby never received are the
 * risk; with an idle-enough primary there may be none).
 */
@HeraldIntegrationTest
class RelayFailoverUnsyncedIT {

  @Test
  void shouldReportTheSlotNotReadyWithoutSynchronizedStandbySlots(StackContext context)
      throws Exception {
    FailoverRun.Outcome outcome = FailoverRun.failOver(context, false);

    assertThat(outcome.readyBefore()).as("herald_relay_slot_failover_ready before").isZero();
    assertThat(outcome.relayLog()).contains("is not ready for a PostgreSQL failover");
  }
}
