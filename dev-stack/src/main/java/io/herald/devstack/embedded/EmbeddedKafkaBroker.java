package io.herald.devstack.embedded;

import io.herald.devstack.FreePort;
import io.herald.devstack.KafkaBroker;
import io.herald.devstack.SelfSignedCertificate;
import io.herald.devstack.process.ChildJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka (the {@code kafka_2.13} artifact of the build) in KRaft mode, one combined broker
 * and controller, run as a child JVM with this JVM's class path: the dev stack's single broker (a
 * cluster of one, {@link #start(Path)}), or one node of an {@link EmbeddedKafkaCluster}. It starts
 * its JVM itself rather than through {@link ChildJvm}: it runs in the broker's directory, appends
 * to one log across restarts, and keeps its standard input as the pipe the child watches to exit
 * with this JVM.
 *
 * <p>Why a child JVM and not {@code KafkaRaftServer} in-process: a restart must behave like a real
 * one (the in-process server leaves static metrics and threads behind and shares the test JVM's 1
 * GB heap); stopping a process is what outage tests mean; and the broker's dependencies cannot
 * clash with whatever the test JVM loads (Debezium, Connect). The price is about a second more
 * start-up for the JVM.
 */
final class EmbeddedKafkaBroker implements KafkaBroker {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
  private static final String HOST = "127.0.0.1";

  /**
   * Ports one node takes: plain, controller, SASL, TLS, proxied and the proxied listener's
   * advertised port (in this order in {@link #node}).
   */
  static final int PORTS_PER_NODE = 6;

  /** The single broker's heap; a node of a larger cluster gets {@link Membership#jvmOptions()}. */
  private static final List<String> SINGLE_JVM = List.of("-Xmx512m");

  /**
   * Where a node sits in its cluster.
   *
   * @param nodeId this node's {@code node.id}
   * @param quorumVoters {@code controller.quorum.voters}: every node, this one included
   * @param replicas replicas of every topic, internal ones included (the cluster's size)
   * @param jvmOptions the child JVM's heap and JIT options
   */
  record Membership(
      String clusterId, int nodeId, String quorumVoters, int replicas, List<String> jvmOptions) {

    Membership {
      jvmOptions = List.copyOf(jvmOptions);
    }

    /** A cluster of one: every internal topic has one replica. */
    static Membership single(int controllerPort) {
      return new Membership(
          Uuid.randomUuid().toString(), 1, voter(1, controllerPort), 1, SINGLE_JVM);
    }

    /** With one replica nothing more can be in sync; with more, two (one broker may be down). */
    int minInsyncReplicas() {
      return Math.min(2, replicas);
    }
  }

  private final Path directory;
  private final Path configFile;
  private final Path logFile;
  private final Membership membership;
  private final int port;
  private final int controllerPort;
  private final int saslPort;
  private final int tlsPort;
  private final int proxiedPort;
  private final int proxiedAdvertisedPort;
  private final SelfSignedCertificate certificate;
  private Process process;
  private long launched;

  private EmbeddedKafkaBroker(
      Path directory,
      Membership membership,
      int port,
      int controllerPort,
      int saslPort,
      int tlsPort,
      int proxiedPort,
      int proxiedAdvertisedPort,
      SelfSignedCertificate certificate) {
    this.directory = directory;
    this.configFile = directory.resolve("server.properties");
    this.logFile = directory.resolve("server.log");
    this.membership = membership;
    this.port = port;
    this.controllerPort = controllerPort;
    this.saslPort = saslPort;
    this.tlsPort = tlsPort;
    this.proxiedPort = proxiedPort;
    this.proxiedAdvertisedPort = proxiedAdvertisedPort;
    this.certificate = certificate;
  }

  static EmbeddedKafkaBroker start(Path directory) {
    int[] ports = FreePort.distinct(PORTS_PER_NODE);
    EmbeddedKafkaBroker broker =
        node(directory, Membership.single(ports[1]), ports, SelfSignedCertificate.forLocalhost());
    broker.start();
    return broker;
  }

  /**
   * A node of a cluster, its configuration written to {@code directory}, not started: {@code ports}
   * are its plain, controller, SASL, TLS, proxied and proxied-advertised ports ({@link
   * #PORTS_PER_NODE}).
   */
  static EmbeddedKafkaBroker node(
      Path directory, Membership membership, int[] ports, SelfSignedCertificate certificate) {
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(
            // The child runs in its directory: the paths it is given must be absolute.
            directory.toAbsolutePath(),
            membership,
            ports[0],
            ports[1],
            ports[2],
            ports[3],
            ports[4],
            ports[5],
            certificate);
    broker.writeConfig();
    return broker;
  }

  int nodeId() {
    return membership.nodeId();
  }

  /**
   * {@code <id>@<host>:<controller port>}, this node's entry in {@code controller.quorum.voters}.
   */
  static String voter(int nodeId, int controllerPort) {
    return nodeId + "@" + HOST + ":" + controllerPort;
  }

  @Override
  public String bootstrapServers() {
    return HOST + ":" + port;
  }

  @Override
  public Optional<String> saslPlainBootstrapServers() {
    return Optional.of(HOST + ":" + saslPort);
  }

  @Override
  public Optional<TlsListener> tlsListener() {
    return Optional.of(new TlsListener(HOST + ":" + tlsPort, certificate.certificatePem()));
  }

  @Override
  public Optional<ProxiedListener> proxiedListener() {
    return Optional.of(new ProxiedListener(HOST, proxiedPort, proxiedAdvertisedPort));
  }

  @Override
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    launch();
    awaitStarted();
  }

  synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Starts the child JVM without waiting for it: the nodes of a cluster answer only once a quorum
   * of controllers runs, so {@link EmbeddedKafkaCluster} launches them all before it waits.
   */
  synchronized void launch() {
    launched = System.nanoTime();
    ProcessBuilder builder =
        new ProcessBuilder(command())
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(Redirect.appendTo(logFile.toFile()));
    // stdin stays a pipe: the child exits when it closes (see KafkaServerMain).
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("starting the Kafka child JVM failed: " + command(), e);
    }
  }

  /** Waits until the {@link #launch launched} JVM answers, or fails with its log's tail. */
  synchronized void awaitStarted() {
    awaitReady();
    StartupReport.print(
        LOG,
        "Kafka 4.3.1 (KRaft, node %d, child JVM pid %d) ready on %s in %d ms (logs %s)",
        membership.nodeId(),
        process.pid(),
        bootstrapServers(),
        Duration.ofNanos(System.nanoTime() - launched).toMillis(),
        logFile);
  }

  /**
   * SIGKILL: no shutdown hook, no clean shutdown; waits until the JVM is gone. The next {@link
   * #start()} recovers the logs left as they were, on the same directory and port.
   */
  @Override
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    Process killed = process;
    process = null;
    killed.destroyForcibly();
    try {
      if (!killed.waitFor(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "Kafka (pid " + killed.pid() + ") still runs " + SHUTDOWN_TIMEOUT + " after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing Kafka", e);
    } finally {
      closeQuietlyLogged(killed.getOutputStream());
    }
    LOG.info("Kafka node {} on {} killed (SIGKILL)", membership.nodeId(), bootstrapServers());
  }

  @Override
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    long started = System.nanoTime();
    Process stopping = process;
    process = null;
    // SIGTERM runs Kafka's shutdown hook: a clean shutdown, so logs and offsets survive.
    stopping.destroy();
    try {
      if (!stopping.waitFor(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Kafka (pid {}) did not stop within {}; killing it", stopping.pid(), SHUTDOWN_TIMEOUT);
        stopping.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      stopping.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping Kafka", e);
    } finally {
      closeQuietlyLogged(stopping.getOutputStream());
    }
    LOG.info(
        "Kafka on {} stopped in {} ms",
        bootstrapServers(),
        Duration.ofNanos(System.nanoTime() - started).toMillis());
  }

  private List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(membership.jvmOptions());
    command.add("-Xms64m");
    command.add("-XX:+UseSerialGC");
    // Its own, inside its directory: the LZ4 codec unpacks its native library there and removes it
    // only at a normal exit, so a broker the fault tests kill leaves its copy in the run's
    // directory (removed with it), not in /tmp (ChildJvm does the same for the other children).
    command.add("-Djava.io.tmpdir=" + directory.resolve("tmp"));
    command.add("-Djava.awt.headless=true");
    command.addAll(ChildJvm.testOptions());
    command.add("-Dlogback.configurationFile=io/herald/devstack/embedded/kafka-logback.xml");
    command.add("-cp");
    // The child runs in the broker's directory: relative class path entries must be absolute.
    command.add(ChildJvm.currentClassPath());
    command.add(KafkaServerMain.class.getName());
    command.add(configFile.toString());
    command.add(membership.clusterId());
    return command;
  }

  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("process.roles", "broker,controller");
    s.put("node.id", Integer.toString(membership.nodeId()));
    s.put("controller.quorum.voters", membership.quorumVoters());
    // Clients' listeners: plain, SASL/PLAIN and TLS, each advertised as it is bound.
    String clientListeners =
        String.join(
            ",",
            "PLAINTEXT://" + HOST + ":" + port,
            "SASL_PLAINTEXT://" + HOST + ":" + saslPort,
            "SSL://" + HOST + ":" + tlsPort);
    // One more plain listener for a proxy in front of the broker (KafkaBroker.proxiedListener):
    // advertised at the port the proxy listens on, not the one it is bound to.
    s.put(
        "listeners",
        clientListeners
            + ",PROXIED://"
            + HOST
            + ":"
            + proxiedPort
            + ",CONTROLLER://"
            + HOST
            + ":"
            + controllerPort);
    s.put(
        "advertised.listeners",
        clientListeners + ",PROXIED://" + HOST + ":" + proxiedAdvertisedPort);
    s.put("controller.listener.names", "CONTROLLER");
    s.put("inter.broker.listener.name", "PLAINTEXT");
    s.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,"
            + "PROXIED:PLAINTEXT");
    // A TLS listener with a certificate made for this broker (PEM, inline).
    s.put("listener.name.ssl.ssl.keystore.type", "PEM");
    s.put("listener.name.ssl.ssl.keystore.certificate.chain", certificate.certificatePem());
    s.put("listener.name.ssl.ssl.keystore.key", certificate.privateKeyPem());
    // The SASL listener knows one user (KafkaBroker.SASL_USER), with the PLAIN mechanism.
    s.put("sasl.enabled.mechanisms", "PLAIN");
    s.put(
        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + SASL_USER
            + "=\""
            + SASL_PASSWORD
            + "\";");
    s.put("log.dirs", directory.resolve("logs").toString());
    // Tests create their topics; a typo must fail, not create a topic.
    s.put("auto.create.topics.enable", "false");
    // Every topic, internal ones included, on every node; with more than one, two in sync.
    String replicas = Integer.toString(membership.replicas());
    String minInsync = Integer.toString(membership.minInsyncReplicas());
    s.put("offsets.topic.replication.factor", replicas);
    s.put("offsets.topic.num.partitions", "5");
    s.put("transaction.state.log.replication.factor", replicas);
    s.put("transaction.state.log.min.isr", minInsync);
    s.put("transaction.state.log.num.partitions", "5");
    s.put("share.coordinator.state.topic.replication.factor", replicas);
    s.put("share.coordinator.state.topic.min.isr", minInsync);
    s.put("default.replication.factor", replicas);
    s.put("min.insync.replicas", minInsync);
    s.put("num.partitions", "1");
    // A consumer group's first member gets its partitions at once, not after 3 s.
    s.put("group.initial.rebalance.delay.ms", "0");
    // Small segments and a bounded retention keep the disk use of a long suite small.
    s.put("log.segment.bytes", String.valueOf(16 * 1024 * 1024));
    s.put("log.retention.ms", String.valueOf(Duration.ofHours(2).toMillis()));
    s.put("log.retention.check.interval.ms", String.valueOf(Duration.ofMinutes(1).toMillis()));
    s.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
    s.put("num.network.threads", "2");
    s.put("num.io.threads", "4");
    s.put("num.recovery.threads.per.data.dir", "1");
    s.put(
        "add.partitions.to.txn.retry.backoff.ms",
        String.valueOf(KafkaBroker.PARTITION_ADD_RETRY.toMillis()));
    return s;
  }

  private void writeConfig() {
    Properties properties = new Properties();
    properties.putAll(settings());
    try {
      Files.createDirectories(directory.resolve("logs"));
      Files.createDirectories(directory.resolve("tmp"));
      try (OutputStream out = Files.newOutputStream(configFile)) {
        properties.store(out, "Herald dev stack: embedded Kafka broker");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + configFile + " failed", e);
    }
  }

  /** Waits until the broker answers a metadata request, or fails with the log's tail. */
  private void awaitReady() {
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000,
            AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    awaitListening(deadline);
    try (Admin admin = Admin.create(config)) {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "Kafka exited with status "
                  + process.exitValue()
                  + " during start-up; log tail:\n"
                  + logTail());
        }
        try {
          if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          // Not listening yet: the loop retries until the deadline.
          LOG.debug("Kafka on {} not ready yet: {}", bootstrapServers(), e.toString());
        }
        if (System.nanoTime() > deadline) {
          process.destroyForcibly();
          throw new IllegalStateException(
              "Kafka on "
                  + bootstrapServers()
                  + " not ready after "
                  + STARTUP_TIMEOUT
                  + "; log tail:\n"
                  + logTail());
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka to start", e);
    }
  }

  /**
   * Waits for the listener socket first: an Admin client started earlier logs a warning for every
   * refused connection.
   */
  private void awaitListening(long deadline) {
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 1_000);
        return;
      } catch (IOException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          // The Admin loop reports the exit status or the timeout with the log's tail.
          return;
        }
        pauseBeforeRetry();
      }
    }
  }

  private void pauseBeforeRetry() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka to start", e);
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(could not read " + logFile + ": " + e + ")";
    }
  }

  private static void closeQuietlyLogged(OutputStream stream) {
    try {
      stream.close();
    } catch (IOException e) {
      LOG.debug("closing the pipe to a stopped Kafka child failed", e);
    }
  }
}
