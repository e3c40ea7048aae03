package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F10 of RELIABILITY.md, the dropped slot: the relay refuses (its offsets name a slot that is
 * gone), {@code herald relay recover}, the relay streams again: 0 lost and a clean audit.
 */
@HeraldIntegrationTest
class SlotDroppedIT {

  @Test
  void shouldLoseNothingWhenTheSlotIsDroppedAndRecoveredFromTheRetainedOutbox(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(stack, new SlotLoss(SlotLoss.Loss.DROPPED));
  }
}
