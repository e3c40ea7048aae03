package io.herald.bench.consumer;

import static org.awaitility.Awaitility.await;

import io.herald.common.event.PublicationKey;
import io.herald.consumer.TestKit;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Issue 17's breaker figure (printed, never asserted): docs/benchmarks-history.md, "Consumer: one
 * failing destination". A healthy destination's deliveries per second alone, beside a destination
 * that answers every request 503 with the circuit breaker on (the default), and beside it with the
 * breaker off; the three interleaved, twice, each figure the better of its two runs. Run on demand:
 * {@code ./mvnw -B -o -pl bench -am -Pbenchmark verify -DskipTests
 * -Dbench.main=io.herald.bench.consumer.BreakerIsolationBenchmark}. System property {@code
 * herald.bench.records} (healthy deliveries per run, default 1500; as many go to the failing one).
 */
public final class BreakerIsolationBenchmark {

  private static final Duration LATENCY = Duration.ofMillis(20);
  private static final int CONCURRENCY = 8;

  private BreakerIsolationBenchmark() {}

  private enum Neighbour {
    NONE("alone"),
    FAILING_BREAKER_ON("beside a 503 storm, breaker on"),
    FAILING_BREAKER_OFF("beside a 503 storm, breaker off");

    final String label;

    Neighbour(String label) {
      this.label = label;
    }
  }

  public static void main(String[] args) throws Exception {
    StackContext stack = StackContext.create(BreakerIsolationBenchmark.class);
    int records = Integer.getInteger("herald.bench.records", 1500);
    double[] best = new double[Neighbour.values().length];
    int run = 0;
    for (int round = 0; round < 2; round++) {
      for (Neighbour neighbour : Neighbour.values()) {
        double rate = healthyRate(stack, "bench-brk-" + run++, neighbour, records);
        best[neighbour.ordinal()] = Math.max(best[neighbour.ordinal()], rate);
      }
    }
    System.out.printf(
        "%nBENCH breaker isolation: a healthy destination (%d ms latency, concurrency %d), %d"
            + " deliveries, best of two runs each%n",
        LATENCY.toMillis(), CONCURRENCY, records);
    for (Neighbour neighbour : Neighbour.values()) {
      System.out.printf(
          "BENCH   %-32s %6.0f deliveries/s = %.2f of alone%n",
          neighbour.label,
          best[neighbour.ordinal()],
          best[neighbour.ordinal()] / best[Neighbour.NONE.ordinal()]);
    }
    System.out.printf("BENCH load average %s%n", loadAverage());
    // The stack's shutdown hook stops PostgreSQL and Kafka; client threads must not keep us up.
    System.exit(0);
  }

  /** Deliveries per second to the healthy destination, first intake to last PUBLISHED. */
  private static double healthyRate(
      StackContext stack, String name, Neighbour neighbour, int records) throws Exception {
    String healthyName = name + "-ok";
    String failingName = name + "-bad";
    try (TestKit kit = new TestKit(stack, name, 8)) {
      TestKit.Destination healthy =
          kit.destination(healthyName, Behaviour.cooperative().withLatency(LATENCY));
      Map<String, String> properties;
      if (neighbour == Neighbour.NONE) {
        properties = kit.properties(stack.groupId(name), healthy);
      } else {
        TestKit.Destination failing = kit.destination(failingName, Behaviour.cooperative());
        // Queued one per request: enough for every attempt of the run, bounded.
        failing.simulator().failNext(new Fault.Status(503), 200_000);
        properties = kit.properties(stack.groupId(name), healthy, failing);
        tune(properties, failingName);
        properties.put(
            "consumer.destinations." + failingName + ".breaker.failures",
            neighbour == Neighbour.FAILING_BREAKER_ON ? "5" : "0");
      }
      tune(properties, healthyName);
      properties.put("consumer.db.pool-size", "10");
      properties.put("consumer.dispatch.pool-size", Integer.toString(2 * CONCURRENCY));
      properties.put("kafka.consumer.max.poll.records", "500");
      // The failing deliveries keep retrying through the run instead of giving up within seconds.
      properties.put("consumer.dispatch.max-attempts", "1000");
      properties.put("consumer.dispatch.backoff-max", "1s");
      for (int i = 0; i < records; i++) {
        // Interleaved, so the failing destination's deliveries arrive with the healthy ones.
        kit.sendAsync(
            TestKit.request(new PublicationKey("t1", "a-" + i, "r-1", healthyName), "Bench " + i));
        if (neighbour != Neighbour.NONE) {
          kit.sendAsync(
              TestKit.request(
                  new PublicationKey("t1", "b-" + i, "r-1", failingName), "Failing " + i));
        }
      }
      kit.flush();
      kit.start(properties);
      await()
          .atMost(Duration.ofMinutes(10))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  kit.query(
                          "SELECT count(*) FROM consumer.delivery WHERE destination = ? AND state"
                              + " = 'PUBLISHED'",
                          healthyName)
                      .equals(List.of(Integer.toString(records))));
      double seconds =
          Double.parseDouble(
              kit.query(
                      "SELECT extract(epoch FROM max(updated_at) - min(created_at))"
                          + " FROM consumer.delivery WHERE destination = ?",
                      healthyName)
                  .getFirst());
      double rate = records / seconds;
      System.out.printf(
          "BENCH   run %s, %s: %d healthy deliveries in %.1f s = %.0f/s (load average %s)%n",
          name, neighbour.label, records, seconds, rate, loadAverage());
      return rate;
    }
  }

  private static void tune(Map<String, String> properties, String destination) {
    String prefix = "consumer.destinations." + destination;
    properties.put(prefix + ".concurrency", Integer.toString(CONCURRENCY));
    properties.put(prefix + ".read-timeout", "2s");
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
