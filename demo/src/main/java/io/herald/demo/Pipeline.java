package io.herald.demo;

import io.herald.consumer.ConsumerJvmOptions;
import io.herald.demo.PipelineSettings.ProcessLinks;
import io.herald.devstack.FreePort;
import io.herald.devstack.process.ChildJvm;
import io.herald.relay.RelayJvmOptions;
import io.herald.schema.CaptureSettings;
import io.herald.schema.DatabaseRoles;
import io.herald.schema.DatabaseRoles.Role;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import io.herald.writer.WriterJvmOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Writer, relay and consumer as three child JVMs against one PostgreSQL database and one Kafka
 * cluster: the production topology on one machine. Each reads its shipped property file and logs
 * with the shipped logging config beside it ({@code logback-<name>.xml}) to {@code <name>.log};
 * only addresses, names and secrets are set, through the documented environment variables.
 *
 * <p>As in production, each process connects with its own database role (herald_writer,
 * herald_relay, herald_consumer, named by the shipped files) and the migrations run as
 * herald_migrator: the start sets the roles up as the administrator would, with passwords made up
 * for this run, and gives the consumer's operator API a token made up likewise.
 */
public final class Pipeline implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  /** Overrides named so go to every process: OpenTelemetry's own configuration. */
  private static final String OTEL_PREFIX = "OTEL_";

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * How each process was started, by name: what {@link #restart(String)} starts again; {@code
   * files} names its property and logging files ({@code <files>.properties}, {@code
   * logback-<files>.xml}), the process's own name when null.
   */
  private record Launch(
      String mainClass, Map<String, String> env, List<String> jvm, URI health, String files) {

    Launch(String mainClass, Map<String, String> env, List<String> jvm, URI health) {
      this(mainClass, env, jvm, health, null);
    }
  }

  private final List<ChildJvm> processes;
  private final Map<String, Launch> launches;
  private final PipelineSettings settings;
  private final URI writerUri;
  private final URI consumerOpsUri;
  private final Map<String, URI> metricsUris;
  private final String operatorToken;
  private final Map<String, String> cliEnv;

  private Pipeline(
      List<ChildJvm> processes,
      Map<String, Launch> launches,
      PipelineSettings settings,
      URI writerUri,
      URI consumerOpsUri,
      Map<String, URI> metricsUris,
      String operatorToken,
      Map<String, String> cliEnv) {
    this.processes = new ArrayList<>(processes);
    // Mutable: a standby relay may join later (startStandbyRelay).
    this.launches = new ConcurrentHashMap<>(launches);
    this.settings = settings;
    this.writerUri = writerUri;
    this.consumerOpsUri = consumerOpsUri;
    this.metricsUris = new ConcurrentHashMap<>(metricsUris);
    this.operatorToken = operatorToken;
    this.cliEnv = Map.copyOf(cliEnv);
  }

  public static Pipeline start(PipelineSettings settings) throws IOException, InterruptedException {
    return start(settings, Map.of());
  }

  /**
   * Starts the three processes with {@code overrides} added to their environment: each {@code
   * HERALD_WRITER_*}, {@code HERALD_RELAY_*} or {@code HERALD_DEBEZIUM_*} and {@code
   * HERALD_CONSUMER_*} or {@code HERALD_KAFKA_*} variable goes to the process it configures (the
   * showcase shortens timeouts this way); each {@code OTEL_*} variable (OpenTelemetry's standard
   * configuration, docs/design.md "Tracing") goes to all three.
   */
  public static Pipeline start(PipelineSettings settings, Map<String, String> overrides)
      throws IOException, InterruptedException {
    Map<Role, String> passwords = new EnumMap<>(Role.class);
    for (Role role : Role.values()) {
      passwords.put(role, secret());
    }
    String operatorToken = secret();
    setUpDatabase(settings, passwords);
    Map<ChildJvm, URI> started = new LinkedHashMap<>();
    Map<String, Launch> launches = new HashMap<>();
    // The herald command reads the same files and overrides as the processes it operates, with
    // the direct addresses: a fault on a process's link must not cut the operator off.
    Map<String, String> cliEnv = new HashMap<>();
    ProcessLinks links = settings.processLinks();
    ProcessLinks direct = settings.directLinks();
    try {
      int writerPort = freePort();
      int writerOps = freePort();
      launches.put(
          "writer",
          new Launch(
              "io.herald.writer.WriterMain",
              put(
                  cliEnv,
                  with(
                      writerEnv(settings, direct, passwords, writerPort, writerOps),
                      overrides,
                      "WRITER"),
                  with(
                      writerEnv(settings, links, passwords, writerPort, writerOps),
                      overrides,
                      "WRITER")),
              WriterJvmOptions.recommended(),
              health(writerOps)));
      started.put(launch(settings, "writer", launches.get("writer")), health(writerOps));
      int relayOps = freePort();
      launches.put(
          "relay",
          new Launch(
              "io.herald.relay.RelayMain",
              put(
                  cliEnv,
                  with(
                      relayEnv(settings, direct, passwords, relayOps),
                      overrides,
                      "RELAY",
                      "DEBEZIUM"),
                  with(
                      relayEnv(settings, links, passwords, relayOps),
                      overrides,
                      "RELAY",
                      "DEBEZIUM")),
              RelayJvmOptions.recommended(),
              health(relayOps)));
      started.put(launch(settings, "relay", launches.get("relay")), health(relayOps));
      int consumerOps = freePort();
      launches.put(
          "consumer",
          new Launch(
              "io.herald.consumer.ConsumerMain",
              put(
                  cliEnv,
                  with(
                      consumerEnv(settings, direct, passwords, operatorToken, consumerOps),
                      overrides,
                      "CONSUMER",
                      "KAFKA"),
                  with(
                      consumerEnv(settings, links, passwords, operatorToken, consumerOps),
                      overrides,
                      "CONSUMER",
                      "KAFKA")),
              ConsumerJvmOptions.recommended(),
              health(consumerOps)));
      started.put(launch(settings, "consumer", launches.get("consumer")), health(consumerOps));
      for (Map.Entry<ChildJvm, URI> process : started.entrySet()) {
        process.getKey().awaitHealthy(process.getValue(), START_TIMEOUT);
      }
      return new Pipeline(
          List.copyOf(started.keySet()),
          launches,
          settings,
          URI.create("http://127.0.0.1:" + writerPort),
          URI.create("http://127.0.0.1:" + consumerOps),
          Map.of(
              "writer", metrics(writerOps),
              "relay", metrics(relayOps),
              "consumer", metrics(consumerOps)),
          operatorToken,
          cliEnv);
    } catch (IOException | InterruptedException | RuntimeException e) {
      for (ChildJvm process : started.keySet()) {
        process.close();
      }
      throw e;
    }
  }

  /** {@code name} on this JVM's class path with {@code <name>.properties}, logging to its file. */
  private static ChildJvm launch(PipelineSettings settings, String name, Launch launch)
      throws IOException {
    String files = launch.files() == null ? name : launch.files();
    Path config = settings.configDir().resolve(files + ".properties").toAbsolutePath();
    return ChildJvm.builder(name, launch.mainClass())
        .jvmOptions(launch.jvm())
        .logbackConfig(settings.configDir().resolve("logback-" + files + ".xml"))
        .args(config.toString())
        .env(launch.env())
        .logFile(settings.logDir().resolve(name + ".log"))
        .appendLog()
        .start();
  }

  private static URI health(int opsPort) {
    return URI.create("http://127.0.0.1:" + opsPort + "/health");
  }

  private static URI metrics(int opsPort) {
    return URI.create("http://127.0.0.1:" + opsPort + "/metrics");
  }

  public URI writerUri() {
    return writerUri;
  }

  public URI consumerOpsUri() {
    return consumerOpsUri;
  }

  /**
   * Each process's Prometheus endpoint, by process name (writer, relay, consumer, and a standby
   * relay once started).
   */
  public Map<String, URI> metricsUris() {
    return Map.copyOf(metricsUris);
  }

  /**
   * Starts a second relay named {@code name} (e.g. {@code relay-2}) with the first relay's file,
   * settings and secrets, its own ops port and log file ({@code <name>.log}), and waits until it is
   * healthy. The two contend for the leader lock: the one without it stands by. From then on {@link
   * #process}, {@link #restart} and {@link #metricsUris} know it; {@link #close} stops it first.
   *
   * @throws IllegalArgumentException if a process of that name exists
   */
  public void startStandbyRelay(String name) throws IOException, InterruptedException {
    Launch relay = launches.get("relay");
    int opsPort = freePort();
    Map<String, String> env = new HashMap<>(relay.env());
    env.put("HERALD_RELAY_OPS_PORT", Integer.toString(opsPort));
    Launch standby = new Launch(relay.mainClass(), env, relay.jvm(), health(opsPort), "relay");
    ChildJvm started;
    synchronized (this) {
      if (launches.putIfAbsent(name, standby) != null) {
        throw new IllegalArgumentException("a process named " + name + " exists already");
      }
      started = launch(settings, name, standby);
      processes.add(started);
      metricsUris.put(name, metrics(opsPort));
    }
    started.awaitHealthy(standby.health(), START_TIMEOUT);
  }

  /** The bearer token of the consumer's operator API ({@code /v1/deliveries} on its ops port). */
  public String operatorToken() {
    return operatorToken;
  }

  /** The settings the pipeline was started with (database, slot, topics, config directory). */
  public PipelineSettings settings() {
    return settings;
  }

  /** The running processes in order of start (writer, relay, consumer). */
  public synchronized List<ChildJvm> processes() {
    return List.copyOf(processes);
  }

  /**
   * Throws {@link ChildJvm.Exited} for the first process found exited (its name, exit code and the
   * end of its log): callers waiting on the pipeline's work call it as they poll, so that a process
   * that died at start or of a defect ends the wait at once instead of at its timeout.
   */
  public void requireAllRunning() {
    processes().forEach(ChildJvm::requireAlive);
  }

  /** The current process named {@code name} (writer, relay or consumer). */
  public synchronized ChildJvm process(String name) {
    return processes.stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no process named " + name));
  }

  /**
   * Starts {@code name} again, as it was started first (same ports, settings and secrets), once its
   * current process has exited (fault injection kills it first), and waits until it is healthy.
   *
   * @throws IllegalStateException if the current process still runs, or the new one is not healthy
   *     in time
   */
  public void restart(String name) throws IOException, InterruptedException {
    Launch launch = launches.get(name);
    if (launch == null) {
      throw new IllegalArgumentException("no process named " + name);
    }
    ChildJvm restarted;
    synchronized (this) {
      ChildJvm current = process(name);
      if (current.isAlive()) {
        throw new IllegalStateException(name + " still runs; kill or stop it first: " + current);
      }
      restarted = launch(settings, name, launch);
      processes.set(processes.indexOf(current), restarted);
    }
    restarted.awaitHealthy(launch.health(), START_TIMEOUT);
  }

  /**
   * The {@code HERALD_*} settings of all three processes (addresses, role passwords, the operator
   * token): what the herald command runs with against this pipeline.
   */
  public Map<String, String> cliEnv() {
    return cliEnv;
  }

  private static Map<String, String> with(
      Map<String, String> env, Map<String, String> overrides, String... prefixes) {
    overrides.forEach(
        (name, value) -> {
          // The standard OpenTelemetry variables configure every process alike.
          if (name.startsWith(OTEL_PREFIX)) {
            env.put(name, value);
          }
          for (String prefix : prefixes) {
            if (name.startsWith("HERALD_" + prefix + "_")) {
              env.put(name, value);
            }
          }
        });
    return env;
  }

  /**
   * Adds {@code cli} (the direct addresses) to the herald command's {@code all}; returns {@code
   * env}.
   */
  private static Map<String, String> put(
      Map<String, String> all, Map<String, String> cli, Map<String, String> env) {
    all.putAll(cli);
    return env;
  }

  private static Map<String, String> writerEnv(
      PipelineSettings s, ProcessLinks l, Map<Role, String> passwords, int httpPort, int opsPort) {
    Map<String, String> env = new HashMap<>();
    env.put("HERALD_WRITER_HTTP_PORT", Integer.toString(httpPort));
    env.put("HERALD_WRITER_OPS_PORT", Integer.toString(opsPort));
    env.put("HERALD_WRITER_DB_JDBC_URL", l.jdbcUrl(s.database()));
    env.put("HERALD_WRITER_DB_PASSWORD", passwords.get(Role.WRITER));
    env.put("HERALD_WRITER_DB_MIGRATION_PASSWORD", passwords.get(Role.MIGRATOR));
    env.put("HERALD_WRITER_CAPTURE_PUBLICATION", s.publication());
    env.put("HERALD_WRITER_CAPTURE_SLOT", s.slot());
    env.put("HERALD_WRITER_KAFKA_BOOTSTRAP_SERVERS", l.bootstrapServers());
    env.put("HERALD_WRITER_STATUS_TOPIC", s.deliveryTopic());
    env.put("HERALD_WRITER_STATUS_GROUP_ID", s.consumerGroup() + "-writer-status");
    return env;
  }

  private static Map<String, String> relayEnv(
      PipelineSettings s, ProcessLinks l, Map<Role, String> passwords, int opsPort) {
    Map<String, String> env = new HashMap<>();
    env.put("HERALD_RELAY_OPS_PORT", Integer.toString(opsPort));
    env.put("HERALD_RELAY_KAFKA_BOOTSTRAP_SERVERS", l.bootstrapServers());
    env.put("HERALD_RELAY_TOPICS_PUBLICATION_EVENTS", s.publicationTopic());
    env.put("HERALD_RELAY_TOPICS_DELIVERY_EVENTS", s.deliveryTopic());
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME", l.postgresHost());
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_PORT", Integer.toString(l.postgresPort()));
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_DBNAME", s.database());
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_PASSWORD", passwords.get(Role.RELAY));
    env.put("HERALD_DEBEZIUM_SOURCE_PUBLICATION_NAME", s.publication());
    env.put("HERALD_DEBEZIUM_SOURCE_SLOT_NAME", s.slot());
    env.put("HERALD_DEBEZIUM_SOURCE_OFFSET_STORAGE_TOPIC", s.offsetsTopic());
    return env;
  }

  private static Map<String, String> consumerEnv(
      PipelineSettings s,
      ProcessLinks l,
      Map<Role, String> passwords,
      String operatorToken,
      int opsPort) {
    Map<String, String> env = new HashMap<>();
    env.put("HERALD_CONSUMER_OPS_PORT", Integer.toString(opsPort));
    env.put("HERALD_CONSUMER_DB_JDBC_URL", l.jdbcUrl(s.database()));
    env.put("HERALD_CONSUMER_DB_PASSWORD", passwords.get(Role.CONSUMER));
    env.put("HERALD_CONSUMER_DB_MIGRATION_PASSWORD", passwords.get(Role.MIGRATOR));
    env.put("HERALD_CONSUMER_OPS_OPERATOR_TOKEN", operatorToken);
    env.put("HERALD_CONSUMER_CAPTURE_PUBLICATION", s.publication());
    env.put("HERALD_CONSUMER_CAPTURE_SLOT", s.slot());
    env.put("HERALD_CONSUMER_KAFKA_BOOTSTRAP_SERVERS", l.bootstrapServers());
    env.put("HERALD_CONSUMER_KAFKA_GROUP_ID", s.consumerGroup());
    env.put("HERALD_CONSUMER_TOPICS_PUBLICATION_EVENTS", s.publicationTopic());
    env.put("HERALD_CONSUMER_TOPICS_DLQ", s.dlqTopic());
    env.put("HERALD_CONSUMER_DESTINATIONS_DEST_A_BASE_URL", l.destinationsBaseUrl() + "/dest-a");
    env.put("HERALD_CONSUMER_DESTINATIONS_DEST_B_BASE_URL", l.destinationsBaseUrl() + "/dest-b");
    env.put("HERALD_CONSUMER_DESTINATIONS_DEST_C_BASE_URL", l.destinationsBaseUrl() + "/dest-c");
    return env;
  }

  /**
   * The deployment steps before any process starts: the administrator's role set-up, then the
   * migrations as herald_migrator, since the relay refuses to start until the schema set-up has
   * created its publication and slot. (The writer and the consumer migrate again at start, as
   * herald_migrator too, and find nothing to do.)
   */
  private static void setUpDatabase(PipelineSettings s, Map<Role, String> passwords) {
    String jdbcUrl = s.postgres().jdbcUrl(s.database());
    DatabaseRoles.setUp(
        dataSource(jdbcUrl, s.postgres().user(), s.postgres().password()), passwords);
    DataSource migrator =
        dataSource(jdbcUrl, Role.MIGRATOR.roleName(), passwords.get(Role.MIGRATOR));
    CaptureSettings capture = new CaptureSettings(s.publication(), s.slot());
    SchemaMigrator.migrate(migrator, HeraldSchema.WRITER, capture);
    SchemaMigrator.migrate(migrator, HeraldSchema.CONSUMER, capture);
  }

  private static DataSource dataSource(String jdbcUrl, String user, String password) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(jdbcUrl);
    dataSource.setUser(user);
    dataSource.setPassword(password);
    return dataSource;
  }

  /** 128 random bits, hex: a password or token nobody wrote down. */
  private static String secret() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static int freePort() throws IOException {
    return FreePort.find();
  }

  /** Stops the processes together, each with SIGTERM and a grace period. */
  @Override
  public synchronized void close() {
    ChildJvm.closeAll(processes);
  }
}
