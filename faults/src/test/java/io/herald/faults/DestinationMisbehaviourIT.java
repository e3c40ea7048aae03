package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F9 of RELIABILITY.md: destinations that stall after accepting, answer 5xx storms, rate-limit,
 * send malformed, huge or dripping answers, or redirect, under load.
 */
@HeraldIntegrationTest
class DestinationMisbehaviourIT {

  @Test
  void shouldEndEveryItemInItsRightStateAndDuplicateNoArticleWhenDestinationsMisbehave(
      StackContext stack) throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new DestinationMisbehaviour());
  }
}
