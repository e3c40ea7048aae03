package io.herald.faults;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.embedded.EmbeddedKafkaCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * F6 of RELIABILITY.md: the pipeline on a three-broker KRaft cluster this test starts (not the
 * stack's single broker), the leader of the busiest partitions SIGKILLed under load and restarted.
 */
@HeraldIntegrationTest
class LeaderKillsIT {

  @Test
  void shouldLoseAndDuplicateNothingWhenThePartitionLeaderIsKilled(StackContext stack)
      throws Exception {
    try (EmbeddedKafkaCluster cluster =
        EmbeddedKafkaCluster.start(Path.of("target", "faults", "f6", "kafka"), 3)) {
      FaultRounds.runAndAssertEveryRoundHeld(stack, cluster, new LeaderKills(cluster));
    }
  }
}
