package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.simulator.DestinationSimulator;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * F5: SIGKILL the Kafka broker under load (no clean shutdown), keep it down for a seeded while,
 * start it again (log recovery on the same directory and port) and wait until it answers. The
 * writer keeps accepting meanwhile (the outbox is in PostgreSQL); the relay and the consumer wait
 * and carry on by themselves. While the broker is down the relay's and the consumer's RSS is
 * sampled; the round prints the peaks (memory bounded meanwhile: a figure, not an assertion).
 */
final class BrokerKills implements FaultClass {

  private static final Duration MIN_DOWN = Duration.ofSeconds(2);
  private static final String[] WATCHED = {"relay", "consumer"};

  private final KafkaBroker broker;
  private final Duration maxDown;
  private final Map<String, Long> peaks = new LinkedHashMap<>();

  /**
   * @param broker the pipeline's broker
   * @param maxDown the longest a kill keeps it down (at least {@link #MIN_DOWN}; the soak's knob)
   */
  BrokerKills(KafkaBroker broker, Duration maxDown) {
    if (maxDown.compareTo(MIN_DOWN) <= 0) {
      throw new IllegalArgumentException(
          "the broker's longest outage must exceed " + MIN_DOWN + ", was " + maxDown);
    }
    this.broker = broker;
    this.maxDown = maxDown;
  }

  @Override
  public String id() {
    return "F5";
  }

  @Override
  public String description() {
    return "SIGKILL the Kafka broker under load and restart it: 0 lost; memory bounded meanwhile";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    long down = MIN_DOWN.toMillis() + random.nextLong(maxDown.toMillis() - MIN_DOWN.toMillis());
    Map<String, Long> pids = new LinkedHashMap<>();
    for (String name : WATCHED) {
      pids.put(name, pipeline.process(name).pid());
    }
    long restart;
    RssSampler sampler = new RssSampler(pids);
    try {
      broker.kill();
      Thread.sleep(down);
      restart = System.nanoTime();
      // Until it answers: the outage lasts through the broker's log recovery.
      broker.start();
    } finally {
      sampler.close();
    }
    Map<String, Long> outage = sampler.peaksKibibytes();
    synchronized (peaks) {
      outage.forEach((name, kib) -> peaks.merge(name, kib, Math::max));
    }
    return String.format(
        "kill broker (down %d ms, answering %d ms after restart; peak RSS while down %s)",
        down, (System.nanoTime() - restart) / 1_000_000, mebibytes(outage));
  }

  /** The peak RSS of the relay and the consumer during this round's outages, in MiB. */
  @Override
  public RoundChecks endRound() {
    synchronized (peaks) {
      Map<String, Long> figures = new LinkedHashMap<>();
      peaks.forEach(
          (name, kib) -> figures.put("peak_rss_" + name + "_mib", Math.round(kib / 1024.0)));
      peaks.clear();
      return new RoundChecks(figures, List.of());
    }
  }

  private static String mebibytes(Map<String, Long> kib) {
    StringBuilder text = new StringBuilder();
    kib.forEach(
        (name, value) ->
            text.append(text.isEmpty() ? "" : ", ").append(name).append(' ').append(mib(value)));
    return text.append(" MiB").toString();
  }

  private static String mib(long kib) {
    return Long.toString(Math.round(kib / 1024.0));
  }
}
