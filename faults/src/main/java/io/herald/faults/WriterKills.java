package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.simulator.DestinationSimulator;
import java.util.Random;

/**
 * F4: SIGKILL the writer at a random moment under load (with requests in flight most of the time),
 * keep it down for up to two seconds, start it again. Clients whose request got no answer send it
 * again, as real ones do; the writer answers the replay 200 when the first attempt committed. Every
 * 2xx answer must have its job and exactly one event, and no job may lack its event.
 */
final class WriterKills implements FaultClass {

  private static final int MAX_DOWN_MILLIS = 2000;

  @Override
  public String id() {
    return "F4";
  }

  @Override
  public String description() {
    return "SIGKILL the writer mid-request: every 2xx answer has its job and exactly one event;"
        + " no job without its event";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    // Down for a while: clients meanwhile get connection errors and back off.
    return ProcessKill.killAndRestart(pipeline, "writer", random, MAX_DOWN_MILLIS);
  }
}
