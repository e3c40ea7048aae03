package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F8 of RELIABILITY.md: latency, resets and freezes on the links process-PostgreSQL, process-Kafka
 * and consumer-destinations, through a proxy on each.
 */
@HeraldIntegrationTest
class NetworkFaultsIT {

  @Test
  void shouldLoseNothingAndDuplicateNoRemoteArticleWhenLinksAreSlowResetOrFrozen(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new NetworkFaults());
  }
}
