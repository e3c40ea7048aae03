package io.herald.faults;

import io.herald.demo.Pipeline;
import java.util.Random;

/** The kill every process-kill fault shares: SIGKILL, a random time down, a restart. */
final class ProcessKill {

  private ProcessKill() {}

  /**
   * Kills {@code process} with SIGKILL, keeps it down for up to {@code maxDownMillis}, starts it
   * again and waits until it is healthy; returns what happened, for the round's report.
   */
  static String killAndRestart(Pipeline pipeline, String process, Random random, int maxDownMillis)
      throws Exception {
    int down = random.nextInt(maxDownMillis);
    pipeline.process(process).kill();
    Thread.sleep(down);
    long restart = System.nanoTime();
    pipeline.restart(process);
    return String.format(
        "kill %s (down %d ms, healthy %d ms after restart)",
        process, down, (System.nanoTime() - restart) / 1_000_000);
  }
}
