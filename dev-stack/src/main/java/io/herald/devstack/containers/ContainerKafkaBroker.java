package io.herald.devstack.containers;

import io.herald.devstack.KafkaBroker;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** Apache Kafka 4.3.1 (KRaft) in Docker with the same broker settings as the embedded one. */
final class ContainerKafkaBroker implements KafkaBroker {

  private static final DockerImageName IMAGE = DockerImageName.parse("apache/kafka:4.3.1");
  private static final int CONTAINER_PORT = 9092;

  private final KafkaContainer container;
  private boolean running;

  private ContainerKafkaBroker(KafkaContainer container) {
    this.container = container;
  }

  @SuppressWarnings("resource") // closed by close()
  static ContainerKafkaBroker launch() {
    int hostPort = HostPorts.free();
    KafkaContainer container =
        new KafkaContainer(IMAGE)
            .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
            .withEnv("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "5")
            .withEnv("KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS", "5")
            .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
            .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
            .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
            .withEnv("KAFKA_LOG_SEGMENT_BYTES", String.valueOf(16 * 1024 * 1024))
            .withEnv("KAFKA_LOG_RETENTION_MS", String.valueOf(2 * 60 * 60 * 1000))
            // The advertised listener is computed from the mapped port at start; binding the
            // host port up front keeps it valid after a Docker stop/start.
            .withCreateContainerCmdModifier(cmd -> HostPorts.bind(cmd, CONTAINER_PORT, hostPort));
    container.start();
    ContainerKafkaBroker broker = new ContainerKafkaBroker(container);
    broker.running = true;
    return broker;
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public synchronized void stop() {
    if (!running) {
      return;
    }
    DockerContainers.stop(container.getContainerId());
    running = false;
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    DockerContainers.start(container.getContainerId());
    ContainerReadiness.awaitKafka(bootstrapServers());
    running = true;
  }

  @Override
  public synchronized void kill() {
    if (!running) {
      return;
    }
    DockerContainers.signalAndAwaitExit(container.getContainerId(), "KILL");
    running = false;
  }

  synchronized void close() {
    container.stop();
    running = false;
  }
}
