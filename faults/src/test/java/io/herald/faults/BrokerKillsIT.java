package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F5 of RELIABILITY.md: the stack's Kafka broker SIGKILLed under load, down a few seconds, then
 * restarted. The module's other IT classes run in this JVM on the same broker, before and after.
 */
@HeraldIntegrationTest
class BrokerKillsIT {

  @Test
  void shouldLoseNothingWhenTheBrokerIsKilledAndRestarted(StackContext stack) throws Exception {
    KafkaBroker broker = stack.stack().kafka();
    try {
      FaultRounds.runAndAssertEveryRoundHeld(
          stack, new BrokerKills(broker, FaultRounds.brokerDown()));
    } finally {
      // Running again for the next IT class, even when a round failed mid-outage (no-op if up).
      broker.start();
    }
  }
}
