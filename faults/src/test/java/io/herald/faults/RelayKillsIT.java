package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/** F1 of RELIABILITY.md: the relay SIGKILLed at random moments under load, then restarted. */
@HeraldIntegrationTest
class RelayKillsIT {

  @Test
  void shouldLoseNothingAndDuplicateNoEffectWhenTheRelayIsKilledRepeatedly(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new RelayKills());
  }
}
