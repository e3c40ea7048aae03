package io.herald.relay.debezium;

import io.debezium.connector.postgresql.PostgresConnector;
import io.debezium.engine.DebeziumEngine;
import io.debezium.schema.SchemaTopicNamingStrategy;
import io.debezium.transforms.outbox.EventRouter;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Herald's work-arounds for Debezium 3.6.1 internals, or Debezium's stock behaviour in their place
 * ({@code relay.engine.debezium-patches}): the one door between the engine wiring and this package.
 *
 * <p>Each patch produces the same events as the stock part it replaces, for less work on the
 * streaming or the engine's thread or at rest; its class comment names the upstream behaviour it
 * works around and what would let it go. To try a Debezium upgrade, run the relay (and {@code
 * RelayDeliveryIT}'s stock subclass) with the patches off first.
 *
 * <table>
 *   <caption>What each patch replaces</caption>
 *   <tr><th>patch ({@link #ON})</th><th>stock ({@link #OFF})</th></tr>
 *   <tr><td>{@link HeraldPostgresConnector} running {@link HeraldPostgresConnectorTask} (with
 *       {@link EventHandoff} under the queue, {@link StreamingMetricsTrim} on the meters and
 *       {@link FlushedOffset} for the slot's confirmations, reported through {@link
 *       TaskHooks})</td>
 *       <td>{@link PostgresConnector}</td></tr>
 *   <tr><td>{@code sourceinfo.struct.maker=}{@link LeanSourceInfo}</td>
 *       <td>Debezium's default source block</td></tr>
 *   <tr><td>{@code topic.naming.strategy=}{@link CachedTopicNames}</td>
 *       <td>{@link SchemaTopicNamingStrategy}, Debezium's default</td></tr>
 *   <tr><td>the routers' predicate {@link TopicIs}</td>
 *       <td>Kafka's {@code TopicNameMatches} on the quoted topic name</td></tr>
 *   <tr><td>the outbox routers {@link FixedTopicEventRouter}</td>
 *       <td>Debezium's {@code EventRouter}</td></tr>
 *   <tr><td>{@code database.socketFactory=}{@link IdleWaitSocketFactory}
 *       ({@code relay.stream.idle-wait})</td><td>the driver's plain sockets</td></tr>
 *   <tr><td>transforms on the engine's polling thread ({@link InlineTransforms})</td>
 *       <td>the engine's record-processing pool</td></tr>
 * </table>
 *
 * <p>Immutable; thread-safe.
 */
public enum DebeziumPatches {
  /** Herald's patches (the default). */
  ON,
  /** Debezium's and Kafka Connect's own classes everywhere. */
  OFF;

  /** Debezium's PostgreSQL connector, the one a property file names. */
  public static final String STOCK_CONNECTOR = PostgresConnector.class.getName();

  /** Debezium's topic naming, whose names {@link CachedTopicNames} keeps. */
  public static final String STOCK_TOPIC_NAMING = SchemaTopicNamingStrategy.class.getName();

  /** The connector classes a property file may name: both run the same connector. */
  public static final Set<String> POSTGRES_CONNECTORS =
      Set.of(STOCK_CONNECTOR, HeraldPostgresConnector.class.getName());

  /**
   * The topic namings whose change topics the outbox routers' predicates match: Debezium's own and
   * its cached copy.
   */
  public static final Set<String> ROUTABLE_TOPIC_NAMINGS =
      Set.of(STOCK_TOPIC_NAMING, CachedTopicNames.class.getName());

  private static final String TOPIC_NAME_MATCHES =
      "org.apache.kafka.connect.transforms.predicates.TopicNameMatches";

  public static DebeziumPatches of(boolean enabled) {
    return enabled ? ON : OFF;
  }

  /** The connector class the engine runs. */
  public String connectorClass() {
    return this == ON ? HeraldPostgresConnector.class.getName() : STOCK_CONNECTOR;
  }

  /** Engine defaults of this mode, which {@code debezium.source.*} settings may override. */
  public Map<String, String> engineDefaults() {
    return this == ON
        ? Map.of(
            "sourceinfo.struct.maker", LeanSourceInfo.class.getName(),
            "topic.naming.strategy", CachedTopicNames.class.getName())
        : Map.of();
  }

  /**
   * A new, unconfigured router of an outbox table, whose topic replacement is the topic's name:
   * what the engine runs ({@link #routerType()}) and the slot recovery routes with.
   */
  public Transformation<SourceRecord> newRouter() {
    return this == ON ? new FixedTopicEventRouter() : new EventRouter<>();
  }

  /**
   * The type of {@link #newRouter()}'s routers, for the engine's settings; named without making a
   * router, whose tracing check would initialise OpenTelemetry in every command that reads the
   * relay's configuration.
   */
  public String routerType() {
    return (this == ON ? FixedTopicEventRouter.class : EventRouter.class).getName();
  }

  /**
   * A predicate's settings (under {@code predicates.<name>.}) that hold for records of {@code
   * topic} only.
   */
  public Map<String, String> topicPredicate(String topic) {
    return this == ON
        ? Map.of("type", TopicIs.class.getName(), TopicIs.TOPIC, topic)
        : Map.of("type", TOPIC_NAME_MATCHES, "pattern", Pattern.quote(topic));
  }

  /**
   * Connector settings (under {@code database.}, for Debezium's driver connections) that make a
   * quiet replication stream wait on its socket ({@link IdleWaitSocket}); none with the patches off
   * or a zero wait.
   */
  public Map<String, String> streamIdleWait(StreamIdleWait idleWait) {
    if (this == OFF || idleWait.idleWait().isZero()) {
      return Map.of();
    }
    return Map.of(
        "database." + IdleWaitSocketFactory.FACTORY_PROPERTY,
        IdleWaitSocketFactory.class.getName(),
        "database." + IdleWaitSocketFactory.ARGUMENT_PROPERTY,
        IdleWaitSocketFactory.argument(idleWait.idleWait(), idleWait.idleAfter()));
  }

  /**
   * Patches the built engine, before it runs: with the patches on, its transforms run on the thread
   * that polls the task ({@link InlineTransforms}) unless the engine's settings size its pool.
   *
   * @param engineSetting the engine's setting of a key, null where unset
   */
  public void patchEngine(DebeziumEngine<?> engine, UnaryOperator<String> engineSetting) {
    String poolSize = engineSetting.apply(InlineTransforms.POOL_SIZE_PROPERTY);
    if (this == ON && (poolSize == null || poolSize.isBlank())) {
      InlineTransforms.apply(engine);
    }
  }

  /**
   * Where the task of one engine reports its slot confirmations ({@link TaskHooks}): put the hooks'
   * settings into that engine's, open them as it starts and close them once it has stopped. With
   * the patches off the stock task reports nothing: no hooks, no settings.
   */
  public TaskHooks taskHooks(SlotConfirmations confirmations) {
    return this == OFF ? TaskHooks.NONE : TaskHooks.of(confirmations);
  }

  /**
   * The connector setting that gives {@link HeraldPostgresConnectorTask}'s hand-off its linger
   * ({@link EventHandoff}); none with the patches off, whose stock poll has no such wait.
   */
  public Map<String, String> handoffLinger(Duration linger) {
    return this == OFF
        ? Map.of()
        : Map.of(HeraldPostgresConnectorTask.LINGER_PROPERTY, Long.toString(linger.toMillis()));
  }

  /**
   * The connector settings a deployment may not set while this mode's idle wait is on: the driver
   * takes one socket factory, and the relay's would silently replace the deployment's.
   */
  public Set<String> socketFactorySettings(StreamIdleWait idleWait) {
    return streamIdleWait(idleWait).isEmpty()
        ? Set.of()
        : Set.of("database." + IdleWaitSocketFactory.FACTORY_PROPERTY, "driver.socketFactory");
  }

  /**
   * Whether the engine's queue keeps Debezium's byte bound ({@code max.queue.size.in.bytes}):
   * {@link HeraldPostgresConnectorTask} drains the queue's storage itself, past Debezium's byte
   * count.
   */
  public boolean keepsQueueByteBound() {
    return this == OFF;
  }
}
