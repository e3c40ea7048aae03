package io.herald.relay.config;

import io.herald.common.event.Topics;
import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigSource;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.ProcessConfig;
import io.herald.config.Validator;
import io.herald.relay.debezium.DebeziumPatches;
import io.herald.relay.debezium.StreamIdleWait;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.ProducerSettings;
import io.herald.relay.ha.LeaderLock;
import io.herald.relay.sink.KafkaBatchSink;
import io.herald.relay.sink.SendRetry;
import io.herald.relay.slot.SlotLagMonitor;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.ops.OpsEndpoint;
import io.herald.runtime.ops.OpsKeys;
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
 * <p>Each component takes a record read here from its key group ({@link StandbyKeys}, {@link
 * SinkKeys}, {@link SlotLagKeys}, {@link StreamKeys}) or assembled here ({@link #engine()}, {@link
 * #producer()}); all of it is validated once, in the constructor, and every problem names its key.
 * To add a key, define it in its group or as one constant below (before {@code DEF}).
 */
public final class RelayConfig extends ProcessConfig {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("relay");

  private static final OpsKeys OPS =
      OpsKeys.define(KEYS, "relay.ops", 8082, "Port of /health and /metrics (0 = any free port).");

  /** {@code relay.standby.*}: the leader lock. */
  public static final StandbyKeys STANDBY = StandbyKeys.define(KEYS, "relay.standby");

  /** {@code relay.sink.*}: re-sends and pipelining. */
  public static final SinkKeys SINK = SinkKeys.define(KEYS, "relay.sink");

  /** {@code relay.slot.*}: the slot-lag monitor. */
  public static final SlotLagKeys SLOT = SlotLagKeys.define(KEYS, "relay.slot");

  /** {@code relay.stream.*}: the replication stream's idle wait. */
  public static final StreamKeys STREAM = StreamKeys.define(KEYS, "relay.stream");

  public static final ConfigKey<Boolean> ENGINE_DEBEZIUM_PATCHES =
      KEYS.define(
          ConfigKey.optional(
              "relay.engine.debezium-patches",
              ConfigType.BOOLEAN,
              true,
              "Run Herald's work-arounds for Debezium 3.6.1 internals (a queue poll that wakes on the first event, trimmed streaming metrics, confirming the slot's position from the engine's own offset flush instead of reading the offsets topic back, a lean source block, cached topic names, an equality topic predicate, outbox routers that name their topic without a regex replacement per event, the idle-wait socket, transforms on the engine's polling thread unless debezium.source.record.processing.threads sizes a pool). false runs stock Debezium in their place (its EventRouter), the same events at a higher cost per event and at rest (relay.stream.idle-wait then does not apply): try a Debezium upgrade with false first."));
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

  /**
   * {@code debezium.sink.kafka.producer.*} settings the relay sets itself, each with the reason:
   * the same policy as every Herald process, a pass-through key that sets what Herald owns is
   * refused.
   */
  private static final Map<String, String> OWNED_PRODUCER_SETTINGS =
      Map.of(
          "bootstrap.servers",
          "set the brokers once, in " + KAFKA_BOOTSTRAP_SERVERS.name(),
          "acks",
          "the relay always sends with acks=all (the no-lost-event guarantee)",
          "enable.idempotence",
          "the relay always sends with enable.idempotence=true (ordered, duplicate-free retries)",
          "key.serializer",
          "the relay sends the outbox's bytes as they are",
          "value.serializer",
          "the relay sends the outbox's bytes as they are");

  /** The relay's own connections to the captured database: slot checks and the leader lock. */
  private static final int DATABASE_POOL_SIZE = 2;

  private static final Duration DATABASE_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final OpsEndpoint ops;
  private final Map<String, Object> producer;
  private final EngineProperties engine;
  private final LeaderLock.Settings standby;
  private final SendRetry sendRetry;
  private final KafkaBatchSink.Pipelining pipelining;
  private final SlotLagMonitor.Settings slotLag;
  private final boolean slotFailover;

  private RelayConfig(ConfigValues values) {
    super(values);
    Map<String, String> source = values.passThrough(DEBEZIUM_SOURCE);
    List<String> transforms = values.get(DEBEZIUM_TRANSFORMS);
    List<String> predicates = values.get(DEBEZIUM_PREDICATES);
    StreamIdleWait idleWait = STREAM.read(values);
    Map<String, String> producerPassThrough = values.passThrough(DEBEZIUM_SINK_KAFKA_PRODUCER);
    // The shared client settings (brokers, security) do not depend on the slot.
    Map<String, Object> kafkaClient =
        ProducerSettings.clientSettings(
            ProducerSettings.from(producerPassThrough, values.get(KAFKA_BOOTSTRAP_SERVERS), ""));
    this.engine =
        EngineProperties.from(
                source,
                transforms,
                values.passThrough(DEBEZIUM_TRANSFORMS_PREFIX),
                predicates,
                values.passThrough(DEBEZIUM_PREDICATES_PREFIX),
                values.get(KAFKA_BOOTSTRAP_SERVERS),
                values.get(TOPIC_PUBLICATION_EVENTS),
                values.get(TOPIC_DELIVERY_EVENTS),
                DebeziumPatches.of(values.get(ENGINE_DEBEZIUM_PATCHES)))
            .withStreamIdleWait(idleWait)
            .withHandoffLinger(SINK.linger(values))
            .withKafkaClient(kafkaClient);
    this.producer =
        ProducerSettings.from(
            producerPassThrough, values.get(KAFKA_BOOTSTRAP_SERVERS), engine.slotName());
    ConfigProblems problems = new ConfigProblems();
    validate(values, source, idleWait, problems);
    EngineChecks.check(engine, source, transforms, predicates, kafkaClient, problems);
    problems.throwIfAny();
    this.ops = OPS.read(values);
    this.standby = STANDBY.read(values);
    this.sendRetry = SINK.retry(values);
    this.pipelining = SINK.pipelining(values, engine.maxBatchSize());
    this.slotLag = SLOT.read(values);
    this.slotFailover = SLOT.failover(values);
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

  private static void validate(
      ConfigValues values,
      Map<String, String> source,
      StreamIdleWait idleWait,
      ConfigProblems problems) {
    Map<String, String> producer = values.passThrough(DEBEZIUM_SINK_KAFKA_PRODUCER);
    OWNED_PRODUCER_SETTINGS.entrySet().stream()
        .filter(owned -> producer.containsKey(owned.getKey()))
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            owned ->
                problems.add(
                    ConfigProblems.assignment(
                            DEBEZIUM_SINK_KAFKA_PRODUCER + owned.getKey(),
                            producer.get(owned.getKey()))
                        + " is set by Herald"
                        + (owned.getKey().equals("bootstrap.servers")
                            ? " from "
                                + ConfigProblems.assignment(
                                    KAFKA_BOOTSTRAP_SERVERS.name(),
                                    values.get(KAFKA_BOOTSTRAP_SERVERS))
                            : "")
                        + ": "
                        + owned.getValue()));
    for (String required : REQUIRED_SOURCE_KEYS) {
      String value = source.get(required);
      if (value == null || value.isBlank()) {
        problems.add(DEBEZIUM_SOURCE + required + ": required key is missing");
      }
    }
    requireTypes(values, DEBEZIUM_TRANSFORMS, DEBEZIUM_TRANSFORMS_PREFIX, "transform", problems);
    requireTypes(values, DEBEZIUM_PREDICATES, DEBEZIUM_PREDICATES_PREFIX, "predicate", problems);
    DebeziumPatches patches = DebeziumPatches.of(values.get(ENGINE_DEBEZIUM_PATCHES));
    for (String key : patches.socketFactorySettings(idleWait)) {
      if (source.containsKey(key)) {
        problems.add(
            DEBEZIUM_SOURCE
                + key
                + " replaces the socket factory that implements "
                + STREAM.idleWait().name()
                + ": set "
                + STREAM.idleWait().name()
                + "=0ms to use your own");
      }
    }
    STANDBY.validate(values, problems);
    SINK.validate(values, problems);
  }

  /** Each name listed in {@code names} needs {@code <prefix><name>.type}. */
  private static void requireTypes(
      ConfigValues values,
      ConfigKey<List<String>> names,
      String prefix,
      String what,
      ConfigProblems problems) {
    Map<String, String> settings = values.passThrough(prefix);
    for (String name : values.get(names)) {
      if (!settings.containsKey(name + ".type")) {
        problems.add(
            names.name()
                + "="
                + String.join(",", values.get(names))
                + " names "
                + what
                + " '"
                + name
                + "' but "
                + prefix
                + name
                + ".type is not set");
      }
    }
  }

  /** Where /health and /metrics are served ({@code relay.ops.*}). */
  public OpsEndpoint ops() {
    return ops;
  }

  /** The embedded engine's properties, checked. Holds secrets. */
  public EngineProperties engine() {
    return engine;
  }

  /**
   * The sink's {@code KafkaProducer} settings ({@link ProducerSettings}). Holds secrets; the other
   * Kafka clients take {@link ProducerSettings#clientSettings} of it.
   */
  public Map<String, Object> producer() {
    return producer;
  }

  /** The captured database for the relay's own connections (slot checks, the leader lock). */
  public DatabaseConfig database() {
    return engine.database(DATABASE_POOL_SIZE, DATABASE_CONNECT_TIMEOUT);
  }

  public LeaderLock.Settings standby() {
    return standby;
  }

  public SendRetry sendRetry() {
    return sendRetry;
  }

  public KafkaBatchSink.Pipelining pipelining() {
    return pipelining;
  }

  public SlotLagMonitor.Settings slotLag() {
    return slotLag;
  }

  /** {@code relay.slot.failover}: keep the slot a failover slot and report its readiness. */
  public boolean slotFailover() {
    return slotFailover;
  }
}
