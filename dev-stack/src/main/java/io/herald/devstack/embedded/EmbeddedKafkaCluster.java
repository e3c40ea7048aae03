package io.herald.devstack.embedded;

import io.herald.devstack.FreePort;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several {@link EmbeddedKafkaBroker} nodes, each a combined broker and controller in its own child
 * JVM, forming one KRaft cluster with one controller quorum: every topic (internal ones included)
 * has one replica per node, {@code min.insync.replicas=2}. For tests that kill one broker of a
 * replicated cluster (the shared stack has a single broker); the test that starts it closes it. Its
 * own proof is the fault suite's {@code LeaderKillsIT} (F6): the pipeline on such a cluster,
 * partition leaders killed and restarted under load, nothing acknowledged lost.
 *
 * <pre>{@code
 * try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.start(Path.of("target", "kafka"), 3)) {
 *   kafka.createTopic("events", 3);                 // replication factor 3
 *   int leader = kafka.leaders("events").get(0);    // node id leading partition 0
 *   kafka.node(leader).kill();                      // SIGKILL that broker
 *   kafka.node(leader).start();                     // log recovery, same port
 *   kafka.awaitFullyReplicated(Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link KafkaBroker#stop()}, {@link KafkaBroker#start()} and {@link
 * KafkaBroker#kill()} act on every node; {@link #node(int)} on one.
 */
public final class EmbeddedKafkaCluster implements KafkaBroker, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaCluster.class);

  /**
   * Each node's JVM options: a small heap; C1 only, since three brokers start (and restart, after a
   * kill) on a machine the test's processes already load, and the JIT's C2 work is most of a
   * broker's start-up CPU there.
   */
  private static final List<String> NODE_JVM = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");

  private final Map<Integer, EmbeddedKafkaBroker> nodes;

  private EmbeddedKafkaCluster(Map<Integer, EmbeddedKafkaBroker> nodes) {
    this.nodes = nodes;
  }

  /**
   * Starts {@code size} nodes (ids 1 to {@code size}) in a new directory under {@code dir} and
   * returns when each answers.
   *
   * @throws IllegalArgumentException if {@code size} is below 1
   * @throws IllegalStateException if a node does not start; the started ones are stopped
   */
  public static EmbeddedKafkaCluster start(Path dir, int size) {
    if (size < 1) {
      throw new IllegalArgumentException("a cluster needs at least one node, was " + size);
    }
    Path clusterDir;
    try {
      Files.createDirectories(dir);
      // A new directory per cluster: a node refuses logs formatted for another cluster id.
      clusterDir = Files.createTempDirectory(dir, "kafka-cluster-");
    } catch (IOException e) {
      throw new UncheckedIOException("creating a cluster directory under " + dir + " failed", e);
    }
    int[] ports = FreePort.distinct(size * EmbeddedKafkaBroker.PORTS_PER_NODE);
    List<String> voters = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      voters.add(
          EmbeddedKafkaBroker.voter(i + 1, ports[i * EmbeddedKafkaBroker.PORTS_PER_NODE + 1]));
    }
    String clusterId = Uuid.randomUuid().toString();
    SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost();
    Map<Integer, EmbeddedKafkaBroker> nodes = new TreeMap<>();
    for (int i = 0; i < size; i++) {
      int id = i + 1;
      int from = i * EmbeddedKafkaBroker.PORTS_PER_NODE;
      nodes.put(
          id,
          EmbeddedKafkaBroker.node(
              clusterDir.resolve("node-" + id),
              new EmbeddedKafkaBroker.Membership(
                  clusterId, id, String.join(",", voters), size, NODE_JVM),
              Arrays.copyOfRange(ports, from, from + EmbeddedKafkaBroker.PORTS_PER_NODE),
              certificate));
    }
    EmbeddedKafkaCluster cluster = new EmbeddedKafkaCluster(Collections.unmodifiableMap(nodes));
    try {
      // A node answers only once a quorum of controllers runs: launch all, then wait for each.
      nodes.values().forEach(EmbeddedKafkaBroker::launch);
      nodes.values().forEach(EmbeddedKafkaBroker::awaitStarted);
    } catch (RuntimeException e) {
      cluster.stop();
      throw e;
    }
    LOG.info(
        "Kafka cluster of {} nodes ready on {} ({})", size, cluster.bootstrapServers(), clusterDir);
    return cluster;
  }

  /** Every node's plain listener. */
  @Override
  public String bootstrapServers() {
    return nodes.values().stream()
        .map(EmbeddedKafkaBroker::bootstrapServers)
        .collect(Collectors.joining(","));
  }

  /** The node ids, 1 to the cluster's size. */
  public Collection<Integer> nodeIds() {
    return List.copyOf(nodes.keySet());
  }

  /**
   * One node, as a broker of its own: its {@link KafkaBroker#kill()}, {@link KafkaBroker#stop()}
   * and {@link KafkaBroker#start()} act on that node alone.
   *
   * @throws IllegalArgumentException if there is no node {@code nodeId}
   */
  public KafkaBroker node(int nodeId) {
    EmbeddedKafkaBroker node = nodes.get(nodeId);
    if (node == null) {
      throw new IllegalArgumentException("no node " + nodeId + "; the nodes are " + nodeIds());
    }
    return node;
  }

  /** Creates a topic with one replica per node. */
  @Override
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, (short) nodes.size());
  }

  /**
   * The leader of each partition of {@code topic}: partition number to node id, {@code -1} while a
   * partition has none.
   *
   * @throws IllegalStateException if the cluster does not answer
   */
  public Map<Integer, Integer> leaders(String topic) {
    Map<Integer, Integer> leaders = new TreeMap<>();
    for (TopicPartitionInfo partition : describe(List.of(topic)).get(topic).partitions()) {
      Node leader = partition.leader();
      leaders.put(partition.partition(), leader == null ? -1 : leader.id());
    }
    return leaders;
  }

  /**
   * Waits until every partition of every topic (internal ones included) has all its replicas in
   * sync: after a node's restart, until it has caught up.
   *
   * @throws IllegalStateException if that takes longer than {@code timeout}, naming a partition
   *     still short of replicas
   */
  public void awaitFullyReplicated(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String lagging = "no answer";
    while (System.nanoTime() < deadline) {
      try {
        lagging = firstUnderReplicated();
        if (lagging == null) {
          return;
        }
      } catch (IllegalStateException e) {
        // A node just restarted may not answer yet; the loop retries until the deadline.
        lagging = e.getMessage();
      }
      try {
        // Nothing to wait on but the followers' fetches.
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the replicas", e);
      }
    }
    throw new IllegalStateException(
        "the cluster on "
            + bootstrapServers()
            + " was not fully replicated within "
            + timeout
            + "; last: "
            + lagging);
  }

  private String firstUnderReplicated() {
    try (Admin admin = Admin.create(adminConfig())) {
      List<String> topics =
          List.copyOf(
              admin
                  .listTopics(new ListTopicsOptions().listInternal(true))
                  .names()
                  .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
      Map<String, TopicDescription> described =
          admin
              .describeTopics(topics)
              .allTopicNames()
              .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      for (TopicDescription topic : described.values()) {
        for (TopicPartitionInfo partition : topic.partitions()) {
          if (partition.isr().size() < partition.replicas().size()) {
            return topic.name()
                + "-"
                + partition.partition()
                + " isr="
                + partition.isr().stream().map(Node::id).toList()
                + " replicas="
                + partition.replicas().stream().map(Node::id).toList();
          }
        }
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while describing the cluster's topics", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "describing the topics on " + bootstrapServers() + ": " + e, e);
    }
  }

  private Map<String, TopicDescription> describe(List<String> topics) {
    try (Admin admin = Admin.create(adminConfig())) {
      return admin
          .describeTopics(topics)
          .allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while describing " + topics, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "describing " + topics + " on " + bootstrapServers() + " failed", e);
    }
  }

  private Map<String, Object> adminConfig() {
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
        5_000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        (int) ADMIN_TIMEOUT.toMillis());
  }

  /** Starts every stopped node and waits until each answers. */
  @Override
  public synchronized void start() {
    List<EmbeddedKafkaBroker> stopped = new ArrayList<>();
    for (EmbeddedKafkaBroker node : nodes.values()) {
      if (!node.isRunning()) {
        node.launch();
        stopped.add(node);
      }
    }
    stopped.forEach(EmbeddedKafkaBroker::awaitStarted);
  }

  /** Stops every node cleanly, each in turn. */
  @Override
  public synchronized void stop() {
    RuntimeException first = null;
    for (EmbeddedKafkaBroker node : nodes.values()) {
      try {
        node.stop();
      } catch (RuntimeException e) {
        // Each node stops on its own: one failing must not leave the others running.
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** SIGKILLs every node. */
  @Override
  public synchronized void kill() {
    nodes.values().forEach(EmbeddedKafkaBroker::kill);
  }

  /**
   * {@link #kill()}: a test's cluster is disposable, and stopping its nodes one by one costs the
   * last one its quorum (it waits out the 30 s stop timeout before it is killed anyway). The data
   * and logs stay on disk for post-mortems, as after a crash.
   */
  @Override
  public void close() {
    kill();
  }
}
