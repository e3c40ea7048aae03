package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F14 of RELIABILITY.md: PostgreSQL failovers under load, from a primary to its synchronous standby
 * holding the synchronized failover slot, the three processes left running.
 */
@HeraldIntegrationTest
class PrimaryFailoverIT {

  @Test
  void shouldLoseNothingAndPublishNoPhantomWhenThePrimaryFailsOverToItsStandby(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new PrimaryFailover());
  }
}
