package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.demo.Showcase;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.Fault;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * F9: a destination that misbehaves as real APIs do, for the next few requests at one of the three
 * destinations: accepts and then stalls past the consumer's timeout, a storm of 500s, 429s with
 * {@code Retry-After}, a success answer that is not JSON, a 512 MiB answer, an answer that drips a
 * byte every half second, a redirect. The consumer must stay up (a crash leaves the round without
 * quiescence), read no answer whole (its heap is 384 MiB; the huge answer is larger), and end each
 * item in the state the answer calls for: published, resent with its key or looked up where the
 * destination allows it, NEEDS_RECONCILIATION at dest-b when the article may exist.
 *
 * <p>Heal: the faults are queued at the simulator; the injection waits until requests have taken
 * them, and drops what is left after {@link #CONSUME_WAIT} (no traffic there any more), so that
 * none is left for a later round or for the operator's resends.
 */
final class DestinationMisbehaviour implements FaultClass {

  private static final Duration CONSUME_WAIT = Duration.ofSeconds(8);

  /** A kind of misbehaviour and how many consecutive requests get it. */
  private record Kind(String name, Fault fault, int minTimes, int maxTimes) {}

  private static final List<Kind> KINDS =
      List.of(
          new Kind(
              "accept then stall 5 s", new Fault.StallAfterAccept(Duration.ofSeconds(5)), 1, 3),
          new Kind("500 storm", new Fault.Status(500), 5, 20),
          new Kind("502 storm", new Fault.Status(502), 5, 20),
          new Kind("429 Retry-After 1 s", new Fault.RateLimited(Duration.ofSeconds(1)), 3, 10),
          new Kind(
              "503 Retry-After 1 s", new Fault.RejectBeforeAccept(Duration.ofSeconds(1)), 3, 10),
          new Kind("malformed success answer", new Fault.MalformedAnswer(), 1, 3),
          new Kind("512 MiB answer", new Fault.HugeAnswer(512L << 20), 1, 2),
          new Kind(
              "answer dripping a byte per 500 ms",
              new Fault.SlowDrip(Duration.ofMillis(500)),
              1,
              3),
          new Kind("307 redirect", new Fault.Redirect(307, "/elsewhere/articles"), 1, 3),
          new Kind(
              "stall without accepting 5 s",
              new Fault.StallWithoutAccepting(Duration.ofSeconds(5)),
              1,
              3));

  @Override
  public String id() {
    return "F9";
  }

  @Override
  public String description() {
    return "destination misbehaviour (accept then stall, 5xx storms, 429/503 Retry-After, malformed,"
        + " huge and dripping answers, redirects): no crash, bounded memory, the right state for"
        + " each, 0 duplicate remote articles where the destination allows it";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    String destination = Showcase.DESTINATIONS.get(random.nextInt(Showcase.DESTINATIONS.size()));
    Kind kind = KINDS.get(random.nextInt(KINDS.size()));
    int times = kind.minTimes() + random.nextInt(kind.maxTimes() - kind.minTimes() + 1);
    simulator.failNext(destination, kind.fault(), times);
    long deadline = System.nanoTime() + CONSUME_WAIT.toNanos();
    while (simulator.pendingFaults(destination) > 0 && System.nanoTime() < deadline) {
      // Waiting on the consumer's requests, which nothing signals.
      Thread.sleep(100);
    }
    int left = simulator.pendingFaults(destination);
    simulator.clearFaults(destination);
    if (!pipeline.process("consumer").isAlive()) {
      throw new IllegalStateException(
          "the consumer died during " + kind.name() + " at " + destination);
    }
    return String.format(
        "%s at %s for %d request(s)%s",
        kind.name(),
        destination,
        times - left,
        left == 0 ? "" : " (" + left + " not taken, dropped)");
  }
}
