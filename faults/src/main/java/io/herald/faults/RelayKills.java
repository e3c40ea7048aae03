package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.simulator.DestinationSimulator;
import java.util.Random;

/**
 * F1: SIGKILL the relay at a random moment (the runner picks it), keep it down for up to two
 * seconds, start it again. The engine resumes from its last committed offset, so events after it
 * reach Kafka a second time: counted as duplicates at Kafka, never a duplicate effect, since the
 * consumer's inbox drops them.
 */
final class RelayKills implements FaultClass {

  private static final int MAX_DOWN_MILLIS = 2000;

  @Override
  public String id() {
    return "F1";
  }

  @Override
  public String description() {
    return "SIGKILL the relay at random points, repeatedly: 0 lost, 0 duplicate effects";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    // Down for a while: committed rows pile up in the WAL meanwhile.
    return ProcessKill.killAndRestart(pipeline, "relay", random, MAX_DOWN_MILLIS);
  }
}
