package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F7 of RELIABILITY.md: PostgreSQL shut down immediately under load and started again, the three
 * processes left running.
 */
@HeraldIntegrationTest
class DatabaseRestartsIT {

  @Test
  void shouldPublishEveryAcknowledgedWriteAndRecoverByItselfWhenPostgresRestartsImmediately(
      StackContext stack) throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new DatabaseRestarts(stack.stack().postgres()));
  }
}
