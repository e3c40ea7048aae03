package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MachineTicksTest {

  @Test
  void shouldGiveBusyAndStolenTimeAsSharesOfAllTicksBetweenTwoReadings() {
    MachineTicks earlier = new MachineTicks(100, 10, 1_000);
    MachineTicks later = new MachineTicks(400, 60, 2_000);

    assertThat(later.busyPercentSince(earlier)).isCloseTo(30.0, within(1e-9));
    assertThat(later.stealPercentSince(earlier)).isCloseTo(5.0, within(1e-9));
  }

  @Test
  void shouldReadThisMachinesTicksWithStealWithinBusyWithinTotal() {
    MachineTicks first = MachineTicks.now();
    MachineTicks second = MachineTicks.now();

    for (MachineTicks ticks : new MachineTicks[] {first, second}) {
      assertThat(ticks.steal()).isBetween(0L, ticks.busy());
      assertThat(ticks.busy()).isBetween(0L, ticks.total());
    }
    assertThat(second.total()).isGreaterThanOrEqualTo(first.total());
    assertThat(second.busyPercentSince(first)).isBetween(0.0, 100.0);
  }
}
