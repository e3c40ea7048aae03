package io.herald.relay.config;

import io.herald.common.event.Topics;
import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigSource;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Durations;
import io.herald.config.ProcessConfig;
import io.herald.config.Validator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The relay's configuration, parsed once from {@code connect-config/relay.properties} plus {@code
 * HERALD_*} environment overrides (mapping: {@link ConfigSource}). Debezium's own settings pass
 * through by prefix, Debezium Server style: {@code debezium.source.*} (connector and offsets),
 * {@code debezium.transforms} / {@code debezium.transforms.*} (the outbox EventRouter), {@code
 * debezium.predicates} / {@code debezium.predicates.*}, {@code debezium.sink.kafka.producer.*} (the
 * {@code KafkaProducer}). Immutable and thread-safe.
 *
 * <p>To add a key, define one constant below (before {@code DEF}); read it with {@link
 * #get(ConfigKey)} or add a typed accessor.
 */
public final class RelayConfig extends ProcessConfig {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("relay");

  public static final ConfigKey<String> OPS_HOST =
      KEYS.define(
          ConfigKey.optional(
              "relay.ops.host",
              ConfigType.STRING,
              "0.0.0.0",
              "Interface /health and /metrics bind to."));
  public static final ConfigKey<Integer> OPS_PORT =
      KEYS.define(
          ConfigKey.optional(
                  "relay.ops.port",
                  ConfigType.INT,
                  8082,
                  "Port of /health and /metrics (0 = any free port).")
              .validatedBy(Validator.port()));
  public static final ConfigKey<Long> STANDBY_LOCK_KEY =
      KEYS.define(
          ConfigKey.optional(
              "relay.standby.lock-key",
              ConfigType.LONG,
              4_851_102_017L,
              "PostgreSQL advisory lock key: the relay holding it streams, the others wait as standbys. Same value for every relay of one database."));
  public static final ConfigKey<Duration> STANDBY_POLL_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "relay.standby.poll-interval",
                  ConfigType.DURATION,
                  Duration.ofSeconds(2),
                  "How often a standby tries to take the lock (bounds fail-over time).")
              .validatedBy(Validator.atLeast(Duration.ofMillis(100))));
  public static final ConfigKey<Duration> STANDBY_DEAD_PEER_TIMEOUT =
      KEYS.define(
          ConfigKey.optional(
                  "relay.standby.dead-peer-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(10),
                  "How long PostgreSQL waits on an unresponsive active relay (TCP keepalive, tcp_user_timeout, and from PostgreSQL 14 idle_session_timeout on the lock connection) before ending its session, freeing the lock for a standby. At least twice relay.standby.poll-interval.")
              .validatedBy(Validator.atLeast(Duration.ofSeconds(1))));
  public static final ConfigKey<Duration> SINK_RETRY_INITIAL_BACKOFF =
      KEYS.define(
          ConfigKey.optional(
                  "relay.sink.retry.initial-backoff",
                  ConfigType.DURATION,
                  Duration.ofMillis(500),
                  "First wait before re-sending a batch Kafka failed with a retriable error (after the producer's own delivery.timeout.ms); doubles up to relay.sink.retry.max-backoff.")
              .validatedBy(Validator.atLeast(Duration.ofMillis(1))));
  public static final ConfigKey<Duration> SINK_RETRY_MAX_BACKOFF =
      KEYS.define(
          ConfigKey.optional(
                  "relay.sink.retry.max-backoff",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "Longest wait between re-sends of a failed batch.")
              .validatedBy(Validator.atLeast(Duration.ofMillis(1))));
  public static final ConfigKey<Duration> SINK_RETRY_GIVE_UP_AFTER =
      KEYS.define(
          ConfigKey.optional(
                  "relay.sink.retry.give-up-after",
                  ConfigType.DURATION,
                  Duration.ofMinutes(10),
                  "How long a batch keeps being re-sent before the relay stops (exit 1, nothing committed past the unacknowledged record) so its supervisor or a standby takes over.")
              .validatedBy(Validator.atLeast(Duration.ofSeconds(1))));
  public static final ConfigKey<Integer> SINK_BATCHES_IN_FLIGHT =
      KEYS.define(
          ConfigKey.optional(
                  "relay.sink.batches-in-flight",
                  ConfigType.INT,
                  2,
                  "Full engine batches the sink may leave unacknowledged while the engine prepares the next (0 waits for every acknowledgement first). Records are still marked for the offset commit only once acknowledged; a crash may re-send up to this many more batches.")
              .validatedBy(Validator.between(0, 16)));
  public static final ConfigKey<Long> SLOT_LAG_WARN_BYTES =
      KEYS.define(
          ConfigKey.optional(
                  "relay.slot.lag-warn-bytes",
                  ConfigType.BYTES,
                  1L << 30,
                  "Retained WAL behind the slot above which /health reports a warning and a log line is written.")
              .validatedBy(Validator.atLeast(1L)));
  public static final ConfigKey<Duration> SLOT_LAG_CHECK_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "relay.slot.lag-check-interval",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "How often the slot lag is measured.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> STREAM_IDLE_WAIT =
      KEYS.define(
          ConfigKey.optional(
                  "relay.stream.idle-wait",
                  ConfigType.DURATION,
                  Duration.ofMillis(200),
                  "Once the replication stream has been quiet for relay.stream.idle-after, each of Debezium's pending-message reads waits up to this long for data instead of 1 ms: an idle relay wakes when PostgreSQL sends rather than polling. 0ms keeps the driver's 1 ms reads. At most 1s (it also bounds how long a stop waits for the streaming thread).")
              .validatedBy(
                  Validator.of(
                      wait ->
                          wait.isZero()
                              || (wait.compareTo(Duration.ofMillis(2)) >= 0
                                  && wait.compareTo(Duration.ofSeconds(1)) <= 0),
                      "0ms, or between 2ms and 1s")));
  public static final ConfigKey<Duration> STREAM_IDLE_AFTER =
      KEYS.define(
          ConfigKey.optional(
                  "relay.stream.idle-after",
                  ConfigType.DURATION,
                  Duration.ofMillis(250),
                  "How long the replication stream must carry nothing before relay.stream.idle-wait applies; a stream that has just carried data keeps 1 ms reads, so a trickle of events leaves the driver's connection free for offset commits as often as before.")
              .validatedBy(Validator.atLeast(Duration.ZERO)));
  public static final ConfigKey<Boolean> ENGINE_DEBEZIUM_PATCHES =
      KEYS.define(
          ConfigKey.optional(
              "relay.engine.debezium-patches",
              ConfigType.BOOLEAN,
              true,
              "Run Herald's work-arounds for Debezium 3.6.1 internals (a queue poll that wakes on the first event, trimmed streaming metrics, a lean source block, cached topic names, an equality topic predicate, the idle-wait socket). false runs stock Debezium in their place, the same events at a higher cost per event and at rest (relay.stream.idle-wait then does not apply): try a Debezium upgrade with false first."));
  public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS =
      KEYS.define(
          ConfigKey.required(
              "relay.kafka.bootstrap-servers",
              ConfigType.STRING,
              "Kafka bootstrap servers, host:port[,host:port]."));
  public static final ConfigKey<String> TOPIC_PUBLICATION_EVENTS =
      KEYS.define(
          ConfigKey.optional(
                  "relay.topics.publication-events",
                  ConfigType.STRING,
                  Topics.PUBLICATION_EVENTS,
                  "Topic for events from writer.outbox.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<String> TOPIC_DELIVERY_EVENTS =
      KEYS.define(
          ConfigKey.optional(
                  "relay.topics.delivery-events",
                  ConfigType.STRING,
                  Topics.DELIVERY_EVENTS,
                  "Topic for events from consumer.outbox.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<List<String>> DEBEZIUM_TRANSFORMS =
      KEYS.define(
          ConfigKey.optional(
              "debezium.transforms",
              ConfigType.LIST,
              List.of(),
              "Extra Debezium transforms, in order, run after the relay's own outbox EventRouters (Kafka Connect 'transforms'); each configured under debezium.transforms.<name>.*."));
  public static final ConfigKey<List<String>> DEBEZIUM_PREDICATES =
      KEYS.define(
          ConfigKey.optional(
              "debezium.predicates",
              ConfigType.LIST,
              List.of(),
              "Debezium predicates (Kafka Connect 'predicates'); each configured under debezium.predicates.<name>.*."));

  /** Connector and offset settings handed to the embedded engine, prefix stripped. */
  public static final String DEBEZIUM_SOURCE =
      KEYS.passThrough(
          "debezium.source.",
          "Debezium PostgreSQL connector and engine settings (offsets, heartbeats, ...), passed to the embedded engine.");

  /** Transform settings, prefix stripped ({@code outbox.type=...}). */
  public static final String DEBEZIUM_TRANSFORMS_PREFIX =
      KEYS.passThrough(
          "debezium.transforms.",
          "Settings of each transform named in debezium.transforms (the outbox EventRouter).");

  /** Predicate settings, prefix stripped. */
  public static final String DEBEZIUM_PREDICATES_PREFIX =
      KEYS.passThrough(
          "debezium.predicates.", "Settings of each predicate named in debezium.predicates.");

  /** {@code KafkaProducer} settings, prefix stripped. */
  public static final String DEBEZIUM_SINK_KAFKA_PRODUCER =
      KEYS.passThrough(
          "debezium.sink.kafka.producer.",
          "KafkaProducer settings of the sink (acks, idempotence, security, ...).");

  private static final ConfigDef DEF = KEYS.build(); // keep last: defining after build fails

  /** {@code debezium.source.*} keys the relay cannot run without. */
  private static final List<String> REQUIRED_SOURCE_KEYS =
      List.of(
          "connector.class",
          "database.hostname",
          "database.dbname",
          "database.user",
          "topic.prefix",
          "publication.name",
          "slot.name");

  private RelayConfig(ConfigValues values) {
    super(values);
    validate();
  }

  /** Reads {@code file} with {@code env} overrides ({@code System.getenv()} in production). */
  public static RelayConfig load(Path file, Map<String, String> env) {
    return from(ConfigSource.load(file, env));
  }

  /**
   * Parses and validates {@code source}.
   *
   * @throws ConfigException naming every unknown key, missing key, bad value and contradiction
   */
  public static RelayConfig from(ConfigSource source) {
    return new RelayConfig(DEF.read(source));
  }

  /** Every relay key, for documentation and tests. */
  public static ConfigDef definition() {
    return DEF;
  }

  private void validate() {
    ConfigProblems problems = new ConfigProblems();
    Map<String, String> producer = kafkaProducer();
    problems.passThroughAgrees(
        DEBEZIUM_SINK_KAFKA_PRODUCER,
        producer,
        "bootstrap.servers",
        KAFKA_BOOTSTRAP_SERVERS,
        kafkaBootstrapServers(),
        "set the brokers once, in " + KAFKA_BOOTSTRAP_SERVERS.name());
    for (String required : REQUIRED_SOURCE_KEYS) {
      String value = debeziumSource().get(required);
      if (value == null || value.isBlank()) {
        problems.add(DEBEZIUM_SOURCE + required + ": required key is missing");
      }
    }
    if ("true".equalsIgnoreCase(debeziumSource().get("extended.headers.enabled"))) {
      problems.add(
          DEBEZIUM_SOURCE
              + "extended.headers.enabled=true contradicts the event contract: Debezium would add"
              + " __debezium.context.* headers to every record");
    }
    String acks = producer.get("acks");
    if (acks != null && !acks.equals("all") && !acks.equals("-1")) {
      problems.add(
          DEBEZIUM_SINK_KAFKA_PRODUCER
              + "acks="
              + acks
              + " contradicts the no-lost-event guarantee: the relay needs acks=all");
    }
    String idempotence = producer.get("enable.idempotence");
    if (idempotence != null && !idempotence.equalsIgnoreCase("true")) {
      problems.add(
          DEBEZIUM_SINK_KAFKA_PRODUCER
              + "enable.idempotence="
              + idempotence
              + " contradicts ordered, duplicate-free retries: the relay needs enable.idempotence=true");
    }
    for (String transform : debeziumTransforms()) {
      if (!debeziumTransformSettings().containsKey(transform + ".type")) {
        problems.add(
            DEBEZIUM_TRANSFORMS.name()
                + "="
                + String.join(",", debeziumTransforms())
                + " names transform '"
                + transform
                + "' but "
                + DEBEZIUM_TRANSFORMS_PREFIX
                + transform
                + ".type is not set");
      }
    }
    for (String predicate : debeziumPredicates()) {
      if (!debeziumPredicateSettings().containsKey(predicate + ".type")) {
        problems.add(
            DEBEZIUM_PREDICATES.name()
                + "="
                + String.join(",", debeziumPredicates())
                + " names predicate '"
                + predicate
                + "' but "
                + DEBEZIUM_PREDICATES_PREFIX
                + predicate
                + ".type is not set");
      }
    }
    if (debeziumPatches() && !streamIdleWait().isZero()) {
      for (String key : List.of("database.socketFactory", "driver.socketFactory")) {
        if (debeziumSource().containsKey(key)) {
          problems.add(
              DEBEZIUM_SOURCE
                  + key
                  + " replaces the socket factory that implements "
                  + STREAM_IDLE_WAIT.name()
                  + ": set "
                  + STREAM_IDLE_WAIT.name()
                  + "=0ms to use your own");
        }
      }
    }
    if (standbyPollInterval().multipliedBy(2).compareTo(standbyDeadPeerTimeout()) > 0) {
      problems.contradiction(
          STANDBY_POLL_INTERVAL.name(),
          Durations.format(standbyPollInterval()),
          "is more than half of",
          STANDBY_DEAD_PEER_TIMEOUT.name(),
          Durations.format(standbyDeadPeerTimeout()),
          "the streaming relay uses its lock session once per poll interval, and the server ends"
              + " that session once it has been idle for the dead-peer timeout");
    }
    if (sinkRetryMaxBackoff().compareTo(sinkRetryInitialBackoff()) < 0) {
      problems.contradiction(
          SINK_RETRY_MAX_BACKOFF.name(),
          Durations.format(sinkRetryMaxBackoff()),
          "is shorter than",
          SINK_RETRY_INITIAL_BACKOFF.name(),
          Durations.format(sinkRetryInitialBackoff()),
          null);
    }
    problems.throwIfAny();
  }

  public String opsHost() {
    return get(OPS_HOST);
  }

  public int opsPort() {
    return get(OPS_PORT);
  }

  public long standbyLockKey() {
    return get(STANDBY_LOCK_KEY);
  }

  public Duration standbyPollInterval() {
    return get(STANDBY_POLL_INTERVAL);
  }

  public Duration standbyDeadPeerTimeout() {
    return get(STANDBY_DEAD_PEER_TIMEOUT);
  }

  public Duration sinkRetryInitialBackoff() {
    return get(SINK_RETRY_INITIAL_BACKOFF);
  }

  public Duration sinkRetryMaxBackoff() {
    return get(SINK_RETRY_MAX_BACKOFF);
  }

  public Duration sinkRetryGiveUpAfter() {
    return get(SINK_RETRY_GIVE_UP_AFTER);
  }

  public int sinkBatchesInFlight() {
    return get(SINK_BATCHES_IN_FLIGHT);
  }

  public long slotLagWarnBytes() {
    return get(SLOT_LAG_WARN_BYTES);
  }

  public Duration slotLagCheckInterval() {
    return get(SLOT_LAG_CHECK_INTERVAL);
  }

  public Duration streamIdleWait() {
    return get(STREAM_IDLE_WAIT);
  }

  public Duration streamIdleAfter() {
    return get(STREAM_IDLE_AFTER);
  }

  public boolean debeziumPatches() {
    return get(ENGINE_DEBEZIUM_PATCHES);
  }

  public String kafkaBootstrapServers() {
    return get(KAFKA_BOOTSTRAP_SERVERS);
  }

  public String publicationEventsTopic() {
    return get(TOPIC_PUBLICATION_EVENTS);
  }

  public String deliveryEventsTopic() {
    return get(TOPIC_DELIVERY_EVENTS);
  }

  /** Transform names, in order ({@code transforms} for the engine). */
  public List<String> debeziumTransforms() {
    return get(DEBEZIUM_TRANSFORMS);
  }

  /** Predicate names ({@code predicates} for the engine). */
  public List<String> debeziumPredicates() {
    return get(DEBEZIUM_PREDICATES);
  }

  /** {@code debezium.source.*}, prefix stripped: connector and engine properties. Holds secrets. */
  public Map<String, String> debeziumSource() {
    return values().passThrough(DEBEZIUM_SOURCE);
  }

  /** {@code debezium.transforms.*}, prefix stripped ({@code outbox.type}, ...). */
  public Map<String, String> debeziumTransformSettings() {
    return values().passThrough(DEBEZIUM_TRANSFORMS_PREFIX);
  }

  /** {@code debezium.predicates.*}, prefix stripped. */
  public Map<String, String> debeziumPredicateSettings() {
    return values().passThrough(DEBEZIUM_PREDICATES_PREFIX);
  }

  /**
   * {@code debezium.sink.kafka.producer.*}, prefix stripped: KafkaProducer properties. Holds
   * secrets.
   */
  public Map<String, String> kafkaProducer() {
    return values().passThrough(DEBEZIUM_SINK_KAFKA_PRODUCER);
  }
}
