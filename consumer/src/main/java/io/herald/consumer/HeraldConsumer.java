package io.herald.consumer;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.common.id.UuidV7;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.consumer.delivery.StatusEvents;
import io.herald.consumer.destination.Destination;
import io.herald.consumer.destination.DestinationClient;
import io.herald.consumer.dispatch.Backoff;
import io.herald.consumer.dispatch.DispatchSettings;
import io.herald.consumer.dispatch.Dispatcher;
import io.herald.consumer.inbox.PublicationListener;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.ops.DestinationControl;
import io.herald.consumer.ops.OperatorApiHandler;
import io.herald.consumer.pause.Pauses;
import io.herald.consumer.policy.Capabilities;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.reconcile.OperatorActions;
import io.herald.consumer.reconcile.ReconcileSettings;
import io.herald.consumer.reconcile.Reconciler;
import io.herald.consumer.retention.RetentionPurger;
import io.herald.consumer.trace.DeliveryTracing;
import io.herald.runtime.db.Databases;
import io.herald.runtime.inbox.InboxLoop;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.HealthCheck;
import io.herald.runtime.ops.OpsServer;
import io.herald.runtime.process.ProcessLifecycle;
import io.herald.runtime.telemetry.Telemetry;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer instance: listener, dispatcher, reconciler, retention purger, ops server, wired from
 * a {@link ConsumerConfig}. Any number of instances may run against one database and one consumer
 * group.
 *
 * <pre>{@code
 * try (HeraldConsumer consumer = HeraldConsumer.start(config)) { ... }
 * }</pre>
 *
 * <p>{@link #close()} stops in order: the listener (no new intake; offsets are committed per
 * batch), the dispatcher (no new claims; in-flight calls finish within the shutdown grace), the
 * reconciler and purger, the ops server, the pool. Thread-safe.
 */
public final class HeraldConsumer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HeraldConsumer.class);

  private final ProcessLifecycle lifecycle;
  private final Deliveries deliveries;
  private final DeliveryViews deliveryViews;
  private final OperatorActions operatorActions;
  private final Reconciler reconciler;
  private final ConsumerMetrics metrics;
  private final Pauses pauses;
  private final DestinationControl destinationControl;
  private final OpsServer ops;

  /**
   * How often each instance reads the operators' pauses (one small scan): a pause made through
   * another instance holds here within this; not a setting.
   */
  static final Duration PAUSE_REFRESH = Duration.ofSeconds(1);

  private HeraldConsumer(ConsumerConfig config, Clock clock, DeliveryTracing tracing) {
    lifecycle = ProcessLifecycle.create("consumer");
    try {
      PrometheusMeterRegistry registry = Metrics.newRegistry("consumer");
      lifecycle.register("metrics registry", registry::close);
      metrics = new ConsumerMetrics(registry);
      HikariDataSource pool =
          lifecycle.register(
              "database pool", Databases.pool("consumer", config.database(), registry));
      if (config.migrateOnStart()) {
        // As the schemas' owner on a connection of its own when one is configured, so that the
        // pool's user (herald_consumer) needs no right to change the schema.
        SchemaMigrator.migrate(
            config.migration().map(Databases::unpooled).orElse(pool),
            HeraldSchema.CONSUMER,
            config.capture());
      }
      UuidV7 ids = new UuidV7(clock, RandomGenerator.getDefault());
      deliveries =
          new Deliveries(pool, new StatusEvents(clock, ids, config.retention().outboxRetention()));
      deliveryViews = new DeliveryViews(pool);
      Map<String, Destination> clients = new LinkedHashMap<>();
      config
          .destinations()
          .forEach(
              (name, destination) ->
                  clients.put(
                      name,
                      new DestinationClient(
                          destination, Executors.newVirtualThreadPerTaskExecutor(), tracing)));
      DispatchSettings dispatch = config.dispatch();
      DeliveryPolicy policy = policy(dispatch, config.reconcile());
      operatorActions =
          new OperatorActions(deliveries, policy, ids, config.destinations().keySet());

      RetentionPurger purger = new RetentionPurger(pool, config.retention(), metrics);
      reconciler =
          new Reconciler(deliveries, clients, dispatch, config.reconcile(), policy, metrics);
      Duration grace = config.reconcile().gracePeriod();
      pauses = new Pauses(pool, PAUSE_REFRESH, System::nanoTime, metrics);
      Dispatcher dispatcher =
          new Dispatcher(
              deliveries,
              clients,
              dispatch,
              policy,
              destination -> Capabilities.of(destination, grace),
              pauses,
              clock,
              metrics,
              tracing);
      destinationControl =
          new DestinationControl(config.destinations(), dispatcher.breakers(), pauses, pool);
      PublicationListener listener =
          new PublicationListener(
              config.inbox(),
              config.deadLetters().topic(),
              config.deadLetters().producerOverrides(),
              deliveries,
              ids,
              clock,
              metrics,
              config.destinations().keySet(),
              dispatcher::wake);

      String tiers = describeTiers(config);
      config
          .destinations()
          .forEach(
              (name, destination) -> {
                metrics.destination(name, destination.profile());
                log.info(
                    "Destination {} ({} profile): {}",
                    name,
                    destination.profile().preset(),
                    destination.profile().guarantee());
              });
      OpsServer.Builder opsBuilder =
          OpsServer.builder("consumer", registry)
              .endpoint(config.ops())
              .healthCheck(Databases.healthCheck("database", pool))
              .healthCheck(
                  HealthCheck.of(
                      "listener",
                      () -> {
                        InboxLoop.Health health = listener.health();
                        return health.degraded()
                            ? HealthCheck.Status.down(health.detail())
                            : HealthCheck.Status.up(health.detail());
                      }))
              // Always up: says what each destination's profile allows, for whoever checks.
              .healthCheck(HealthCheck.of("destinations", () -> HealthCheck.Status.up(tiers)))
              .healthCheck(
                  loopCheck(
                      "dispatcher", () -> dispatcher.healthy(ConsumerConfig.LOOP_MAX_SILENCE)))
              .healthCheck(
                  loopCheck(
                      "reconciler",
                      () ->
                          reconciler.healthy(
                              ConsumerConfig.LOOP_MAX_SILENCE.plus(
                                  config.reconcile().interval()))));
      config
          .operatorToken()
          .ifPresent(
              token ->
                  opsBuilder.handler(
                      OperatorApiHandler.create(
                          deliveryViews,
                          operatorActions,
                          destinationControl,
                          dispatch.owner(),
                          token)));
      ops = lifecycle.register("ops server", opsBuilder.start());

      lifecycle.register("retention purger", purger);
      purger.start();
      lifecycle.register("reconciler", reconciler);
      reconciler.start();
      lifecycle.register("dispatcher", dispatcher);
      dispatcher.start();
      lifecycle.register("listener", listener);
      listener.start();
      log.info("Consumer {} started; ops on {}", dispatch.owner(), ops.uri());
    } catch (RuntimeException e) {
      lifecycle.close();
      throw e;
    }
  }

  /** Starts a consumer instance (migrating the schema first when configured). */
  public static HeraldConsumer start(ConsumerConfig config) {
    // The Java agent's or the embedding application's, when one is set; the API's no-op otherwise.
    return start(config, Telemetry.globalIfSet());
  }

  /**
   * As {@link #start(ConsumerConfig)}, tracing deliveries and destination calls with {@code
   * openTelemetry} ({@link ConsumerMain} passes the one {@code Telemetry.install} set up).
   */
  public static HeraldConsumer start(ConsumerConfig config, OpenTelemetry openTelemetry) {
    return new HeraldConsumer(config, Clock.systemUTC(), DeliveryTracing.of(openTelemetry));
  }

  public Deliveries deliveries() {
    return deliveries;
  }

  /** The operators' read side of the delivery table. */
  public DeliveryViews deliveryViews() {
    return deliveryViews;
  }

  public OperatorActions operatorActions() {
    return operatorActions;
  }

  public Reconciler reconciler() {
    return reconciler;
  }

  /** The operators' destination pauses (durable, shared by every instance). */
  public Pauses pauses() {
    return pauses;
  }

  /** Destinations as the operator API shows them: pauses, this instance's breakers. */
  public DestinationControl destinations() {
    return destinationControl;
  }

  public ConsumerMetrics metrics() {
    return metrics;
  }

  /** Base URI of /health, /metrics and the operator API. */
  public URI opsUri() {
    return ops.uri();
  }

  @Override
  public void close() {
    lifecycle.close();
  }

  /** The one delivery policy the dispatcher, the reconciler and the operator actions share. */
  static DeliveryPolicy policy(DispatchSettings dispatch, ReconcileSettings reconcile) {
    Backoff backoff =
        new Backoff(dispatch.backoffBase(), dispatch.backoffMax(), RandomGenerator.getDefault());
    return new DeliveryPolicy(dispatch.maxAttempts(), reconcile.lookupRetry(), backoff::delay);
  }

  /** {@code dest-a: exactly-once in effect (key Idempotency-Key, window 24h, then lookup); ...}. */
  static String describeTiers(ConsumerConfig config) {
    StringBuilder text = new StringBuilder();
    config
        .destinations()
        .forEach(
            (name, destination) ->
                text.append(text.isEmpty() ? "" : "; ")
                    .append(name)
                    .append(": ")
                    .append(destination.profile().guarantee()));
    return text.toString();
  }

  private static HealthCheck loopCheck(String name, java.util.function.BooleanSupplier healthy) {
    return HealthCheck.of(
        name,
        () ->
            healthy.getAsBoolean()
                ? HealthCheck.Status.up("loop running")
                : HealthCheck.Status.down(
                    "loop stopped or silent for over " + ConsumerConfig.LOOP_MAX_SILENCE));
  }
}
