package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F2 of RELIABILITY.md: two relays; the streaming one SIGSTOPped under load until the standby
 * streams, then SIGCONTed.
 */
@HeraldIntegrationTest
class RelayFreezeIT {

  @Test
  void shouldKeepOneSlotReaderAndLetTheWokenRelayPublishNothingWhenTheLeaderFreezes(
      StackContext stack) throws Exception {
    for (RoundReport report :
        FaultRounds.runAndAssertEveryRoundHeld(stack, new RelayFreeze(stack))) {
      // The takeover happened: the slot changed readers at least once per fault.
      assertThat(report.figure("slot_reader_changes"))
          .as(report.format())
          .isGreaterThanOrEqualTo(report.faults().size());
      assertThat(report.figure("max_slot_readers")).as(report.format()).isLessThanOrEqualTo(1);
    }
  }
}
