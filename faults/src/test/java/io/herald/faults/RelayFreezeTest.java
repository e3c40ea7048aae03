package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.kafka.clients.admin.ProducerState;
import org.junit.jupiter.api.Test;

class RelayFreezeTest {

  private static ProducerState state(int epoch, int sequence) {
    return new ProducerState(7, epoch, sequence, 0, OptionalInt.empty(), OptionalLong.empty());
  }

  @Test
  void shouldCountNothingWhenTheNewLeaderOfASharedIdAppendsAtHigherEpochs() {
    assertThat(RelayFreeze.wokenAppends(state(3, 40), state(5, 2), true)).isZero();
    assertThat(RelayFreeze.wokenAppends(null, state(5, 2), true)).isZero();
  }

  @Test
  void shouldCountAnEpochGoingBackAsTheWokenRelaysWrite() {
    assertThat(RelayFreeze.wokenAppends(state(5, 2), state(4, 41), true)).isEqualTo(42);
  }

  @Test
  void shouldCountEveryChangeOfADistinctFrozenProducer() {
    assertThat(RelayFreeze.wokenAppends(state(0, 32), state(0, 33), false)).isEqualTo(1);
    assertThat(RelayFreeze.wokenAppends(state(0, 32), state(0, 32), false)).isZero();
    assertThat(RelayFreeze.wokenAppends(null, state(0, 0), false)).isEqualTo(1);
    assertThat(RelayFreeze.wokenAppends(state(0, 32), state(1, 0), false)).isEqualTo(1);
  }
}
