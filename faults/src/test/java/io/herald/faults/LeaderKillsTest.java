package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeaderKillsTest {

  @Test
  void shouldPickTheNodeLeadingMostPartitions() {
    Map<Integer, Integer> leaders = Map.of(0, 2, 1, 3, 2, 2);

    assertThat(LeaderKills.busiest(leaders, new Random(1))).isEqualTo(2);
  }

  @Test
  void shouldPickAmongTiedLeadersByTheSeed() {
    Map<Integer, Integer> leaders = Map.of(0, 1, 1, 2, 2, 3);
    Set<Integer> picked = new HashSet<>();
    for (long seed = 0; seed < 50; seed++) {
      picked.add(LeaderKills.busiest(leaders, new Random(seed)));
    }

    assertThat(picked).containsExactlyInAnyOrder(1, 2, 3);
    assertThat(LeaderKills.busiest(leaders, new Random(7)))
        .isEqualTo(LeaderKills.busiest(leaders, new Random(7)));
  }

  @Test
  void shouldIgnorePartitionsWithoutALeader() {
    assertThat(LeaderKills.busiest(Map.of(0, -1, 1, 3, 2, -1), new Random(3))).isEqualTo(3);
  }

  @Test
  void shouldRefuseWhenNoPartitionHasALeader() {
    assertThatThrownBy(() -> LeaderKills.busiest(Map.of(0, -1), new Random(3)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no partition has a leader");
  }
}
