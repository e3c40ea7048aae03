package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.embedded.EmbeddedKafkaCluster;
import io.herald.devstack.simulator.DestinationSimulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * F6: on a three-broker cluster (replication factor 3, {@code min.insync.replicas=2}), SIGKILL the
 * broker that leads most partitions of the publication topic (a tie broken by the seed) under load,
 * start it again after a seeded while, and wait until every partition has all its replicas in sync
 * again (so the next kill never takes a second replica of a partition). Producers send with {@code
 * acks=all}: a record acknowledged before the kill is on a second replica, which the controller
 * makes leader. The round prints the longest stall (the longest gap between consecutive arrivals at
 * the consumer).
 */
final class LeaderKills implements FaultClass {

  private static final int MAX_DOWN_MILLIS = 3000;
  private static final Duration REPLICATED_TIMEOUT = Duration.ofMinutes(2);

  private final EmbeddedKafkaCluster cluster;

  LeaderKills(EmbeddedKafkaCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String id() {
    return "F6";
  }

  @Override
  public String description() {
    return "SIGKILL the leader of the busiest partitions of a 3-broker cluster under load:"
        + " 0 lost, 0 duplicate effects; the longest stall printed";
  }

  /**
   * The relay's Debezium offsets topic gets a replica on every broker too (the shipped file says 1,
   * for a single broker); the broker-side internal topics have 3 by the cluster's settings.
   */
  @Override
  public Map<String, String> overrides() {
    return Map.of(
        "HERALD_DEBEZIUM_SOURCE_OFFSET_STORAGE_REPLICATION_FACTOR",
        Integer.toString(cluster.nodeIds().size()));
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    String topic = pipeline.settings().publicationTopic();
    Map<Integer, Integer> leaders = cluster.leaders(topic);
    int victim = busiest(leaders, random);
    int down = random.nextInt(MAX_DOWN_MILLIS);
    cluster.node(victim).kill();
    Thread.sleep(down);
    long restart = System.nanoTime();
    cluster.node(victim).start();
    long answering = System.nanoTime();
    cluster.awaitFullyReplicated(REPLICATED_TIMEOUT);
    return String.format(
        "kill broker %d leading %d of %d partitions %s (down %d ms, answering %d ms and in sync"
            + " %d ms after restart; leaders now %s)",
        victim,
        leaders.values().stream().filter(l -> l == victim).count(),
        leaders.size(),
        leaders,
        down,
        (answering - restart) / 1_000_000,
        (System.nanoTime() - restart) / 1_000_000,
        cluster.leaders(topic));
  }

  /** The node leading most partitions; among equals, one the seed picks. */
  static int busiest(Map<Integer, Integer> leaders, Random random) {
    Map<Integer, Integer> led = new TreeMap<>();
    leaders.values().stream().filter(l -> l >= 0).forEach(l -> led.merge(l, 1, Integer::sum));
    if (led.isEmpty()) {
      throw new IllegalStateException("no partition has a leader: " + leaders);
    }
    int most = led.values().stream().max(Integer::compare).orElseThrow();
    List<Integer> busiest = new ArrayList<>();
    led.forEach(
        (node, count) -> {
          if (count == most) {
            busiest.add(node);
          }
        });
    return busiest.get(random.nextInt(busiest.size()));
  }
}
