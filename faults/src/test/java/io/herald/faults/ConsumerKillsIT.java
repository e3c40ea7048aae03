package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F3 of RELIABILITY.md: the consumer SIGKILLed at random moments under load, some between the
 * destination's success and the consumer recording it, then restarted.
 */
@HeraldIntegrationTest
class ConsumerKillsIT {

  @Test
  void shouldParkEveryAmbiguousItemAndDuplicateNoArticleWhenTheConsumerIsKilled(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new ConsumerKills());
  }
}
