package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's PostgreSQL failover with {@code synchronized_standby_slots} on the primary ({@link
 * FailoverRun}): the relay, in the same process, streams on from the synchronized slot; every row
 * of the new primary reached Kafka and no event reached Kafka for a commit it lacks.
 */
@HeraldIntegrationTest
class RelayFailoverIT {

  @Test
  void shouldStreamOnFromTheSynchronizedSlotWithNothingLostAndNoPhantom(StackContext context)
      throws Exception {
    FailoverRun.Outcome outcome = FailoverRun.failOver(context, true);

    assertThat(outcome.readyBefore()).as("herald_relay_slot_failover_ready before").isEqualTo(1);
    assertThat(outcome.lost()).as("rows of the new primary missing from Kafka").isEmpty();
    assertThat(outcome.phantoms()).as("events for commits the new primary lacks").isEmpty();
    assertThat(outcome.relayAlive()).as("the relay recovered in the same process").isTrue();
  }
}
