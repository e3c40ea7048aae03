package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F10 of RELIABILITY.md: the slot dropped and recreated and the offsets topic deleted under load;
 * the relay refuses, {@code herald relay recover}, the relay streams again: 0 lost. {@link
 * SlotDroppedIT} drops the slot only.
 */
@HeraldIntegrationTest
class SlotLossIT {

  @Test
  void shouldLoseNothingWhenTheSlotIsLostAndRecoveredFromTheRetainedOutbox(StackContext stack)
      throws Exception {
    FaultRounds.runAndAssertEveryRoundHeld(
        stack, new SlotLoss(SlotLoss.Loss.RECREATED_WITHOUT_OFFSETS));
  }
}
