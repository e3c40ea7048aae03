package io.herald.devstack;

import io.herald.devstack.proxy.TcpProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A Kafka broker in KRaft mode with topic auto-creation switched off: tests create their topics.
 *
 * <p>Thread-safe. {@link #stop()} (or {@link #kill()}) and {@link #start()} keep the port and the
 * log directory, so records and committed offsets survive a restart.
 */
public interface KafkaBroker {

  /**
   * The broker's {@code add.partitions.to.txn.retry.backoff.ms}. The relay commits a transaction
   * every few milliseconds while events trickle in. Under transactions v2 the next transaction's
   * first record makes its partition's leader add the partition at the coordinator, which refuses
   * until the previous commit's markers are written (about a millisecond here); the leader retries
   * after this backoff, 20 ms by Kafka's default, and the record waits it out: the largest share of
   * the relay's commit-to-Kafka tail at 1,000 events/s (docs/design.md, "The brokers' partition-add
   * retry"). The dev stack's brokers are started with it; {@code docker-compose.yml}'s broker sets
   * the same ({@code ComposeFileTest}).
   */
  Duration PARTITION_ADD_RETRY = Duration.ofMillis(1);

  /** How long {@link #createTopic} waits for the broker. */
  Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  /** The {@code bootstrap.servers} value for clients. */
  String bootstrapServers();

  /** The user of the SASL/PLAIN listener ({@link #saslPlainBootstrapServers()}). */
  String SASL_USER = "herald";

  /** The password of {@link #SASL_USER}. */
  String SASL_PASSWORD = "herald-sasl-test";

  /**
   * The {@code bootstrap.servers} of a listener that requires SASL/PLAIN authentication ({@code
   * security.protocol=SASL_PLAINTEXT}, user {@link #SASL_USER}), on the same broker as {@link
   * #bootstrapServers()}; empty when the broker has none.
   */
  default Optional<String> saslPlainBootstrapServers() {
    return Optional.empty();
  }

  /**
   * A listener that requires TLS ({@code security.protocol=SSL}) on the same broker, and the
   * certificate a client trusts for it (PEM, for {@code ssl.truststore.type=PEM}).
   */
  record TlsListener(String bootstrapServers, String trustedCertificatePem) {}

  /** The broker's TLS listener; empty when it has none. */
  default Optional<TlsListener> tlsListener() {
    return Optional.empty();
  }

  /**
   * A PLAINTEXT listener for a proxy in front of the broker (network faults: {@link TcpProxy}). It
   * is bound at {@code host:boundPort} and advertised at {@code host:advertisedPort}, where nothing
   * listens until the proxy does: a client that bootstraps through a proxy on {@code
   * advertisedPort} (forwarding to {@code boundPort}) gets metadata naming the proxy, so all its
   * connections go through it.
   */
  record ProxiedListener(String host, int boundPort, int advertisedPort) {

    /** The {@code bootstrap.servers} value for clients behind the proxy. */
    public String bootstrapServers() {
      return host + ":" + advertisedPort;
    }

    /** Where the broker really listens, behind the proxy. */
    public InetSocketAddress target() {
      return new InetSocketAddress(host, boundPort);
    }

    /**
     * Starts the proxy this listener waits for: on {@code advertisedPort}, forwarding to {@link
     * #target()}; {@code name} names its threads and log lines.
     */
    public TcpProxy startProxy(String name) {
      return TcpProxy.start(name, advertisedPort, target());
    }
  }

  /** The broker's listener for a proxy; empty when it has none (the container broker). */
  default Optional<ProxiedListener> proxiedListener() {
    return Optional.empty();
  }

  /**
   * Creates a topic with replication factor 1 and waits until the controller has accepted it.
   *
   * @throws IllegalStateException if the topic exists or the broker refuses or does not answer
   */
  default void createTopic(String name, int partitions) {
    createTopic(name, partitions, (short) 1);
  }

  /**
   * Creates a topic with {@code replicas} replicas of each partition and waits until the controller
   * has accepted it.
   *
   * @throws IllegalStateException if the topic exists or the broker refuses or does not answer
   */
  default void createTopic(String name, int partitions, short replicas) {
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) ADMIN_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(config)) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, replicas)))
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic '" + name + "'", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "creating topic '"
              + name
              + "' with "
              + partitions
              + " partitions of "
              + replicas
              + " replicas on "
              + bootstrapServers()
              + " failed",
          e);
    }
  }

  /** Stops the broker cleanly. No-op when stopped. */
  void stop();

  /** Starts the broker again on the same port and log directory. No-op when running. */
  void start();

  /**
   * Kills the broker with SIGKILL (no clean shutdown) and waits until it is gone; {@link #start()}
   * then recovers its logs from the same directory. No-op when stopped.
   */
  void kill();
}
