package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/** F4 of RELIABILITY.md: the writer SIGKILLed under load, then restarted; clients resend. */
@HeraldIntegrationTest
class WriterKillsIT {

  @Test
  void shouldGiveEveryAcknowledgedIntentItsJobAndOneEventWhenTheWriterIsKilled(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new WriterKills());
  }
}
