package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.Showcase;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.Fault;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * F3: SIGKILL the consumer, either at a random moment or, half of the time, between a destination's
 * success and the consumer recording it: the simulator creates the article, then its {@link
 * Fault.OnAccept} hook kills the consumer before the answer leaves. Then it starts the consumer
 * again. The restarted consumer finds the dead one's claims DISPATCHING; once their lease has run
 * out the reconciler settles them: a resend with the same key (dest-a), a lookup (dest-c), or
 * NEEDS_RECONCILIATION where the destination has neither (dest-b), never a resend there.
 *
 * <p>The shipped lease is 2 minutes (F12 is about shortening the recovery); this class sets a lease
 * of 10 s, above the longest call the showcase's timeouts allow, so that quiescence comes in
 * seconds. Likewise the Kafka group session: 6 s instead of the client's 45 s, which a killed
 * consumer's partitions otherwise wait out before the restarted one gets them.
 */
final class ConsumerKills implements FaultClass {

  private static final int MAX_DOWN_MILLIS = 1000;
  private static final long HOOK_WAIT_SECONDS = 10;

  @Override
  public String id() {
    return "F3";
  }

  @Override
  public String description() {
    return "SIGKILL the consumer at random points, including between the destination's success"
        + " and recording it: 0 lost, 0 duplicate remote articles, every ambiguous item at the"
        + " destination with neither key nor lookup NEEDS_RECONCILIATION and none re-sent";
  }

  @Override
  public Map<String, String> overrides() {
    return Map.of(
        // The dead instance keeps its partitions until its group session expires (45 s by
        // default); the broker's minimum lets the restarted one take them over in seconds.
        "HERALD_KAFKA_CONSUMER_SESSION_TIMEOUT_MS", "6000");
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    String how;
    if (random.nextBoolean()) {
      String destination = Showcase.DESTINATIONS.get(random.nextInt(Showcase.DESTINATIONS.size()));
      how = killOnAccept(pipeline, simulator, destination);
    } else {
      pipeline.process("consumer").kill();
      how = "kill consumer at a random moment";
    }
    int down = random.nextInt(MAX_DOWN_MILLIS);
    Thread.sleep(down);
    pipeline.restart("consumer");
    return how + " (down " + down + " ms)";
  }

  /**
   * Arms a hook on the next article request at {@code destination}; if none comes in time (no
   * traffic there now), disarms it and kills at once. A disarmed hook left in the simulator's queue
   * does nothing when a later request takes it.
   */
  private static String killOnAccept(
      Pipeline pipeline, DestinationSimulator simulator, String destination)
      throws InterruptedException {
    AtomicBoolean armed = new AtomicBoolean(true);
    CountDownLatch fired = new CountDownLatch(1);
    simulator.failNext(
        destination,
        new Fault.OnAccept(
            () -> {
              if (armed.compareAndSet(true, false)) {
                try {
                  pipeline.process("consumer").kill();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("interrupted while killing the consumer", e);
                }
                fired.countDown();
              }
            }),
        1);
    if (fired.await(HOOK_WAIT_SECONDS, TimeUnit.SECONDS)) {
      return "kill consumer after " + destination + " created an article, before it answered";
    }
    if (armed.compareAndSet(true, false)) {
      pipeline.process("consumer").kill();
      return "kill consumer at a random moment (no request at "
          + destination
          + " within "
          + HOOK_WAIT_SECONDS
          + " s)";
    }
    // The hook fired between the wait's end and the disarm.
    fired.await();
    return "kill consumer after " + destination + " created an article, before it answered";
  }
}
