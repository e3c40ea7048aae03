package io.herald.writer;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.common.id.UuidV7;
import io.herald.common.json.Json;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.Databases;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.HealthCheck;
import io.herald.runtime.ops.OpsServer;
import io.herald.runtime.process.ProcessLifecycle;
import io.herald.runtime.telemetry.Telemetry;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import io.herald.writer.auth.BearerAuthenticator;
import io.herald.writer.config.WriterConfig;
import io.herald.writer.http.ApiServer;
import io.herald.writer.http.PublicationApi;
import io.herald.writer.job.JobStore;
import io.herald.writer.job.SingleReservations;
import io.herald.writer.outbox.OutboxWriter;
import io.herald.writer.retention.RetentionPurger;
import io.herald.writer.status.StatusView;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running writer: connection pool, schema migration, the API server, the ops server ({@code
 * /health}, {@code /metrics}), the status view ({@code writer.status.enabled}, reading from {@code
 * writer.kafka.bootstrap-servers}) and the retention purge (the outbox with {@code
 * writer.outbox.retention=keep}, the status view's inbox). {@link WriterMain} runs one per JVM;
 * tests start one in-process on free ports.
 *
 * <p>Start-up waits for PostgreSQL for at most {@code writer.db.startup-timeout}, logging every
 * failed attempt, then gives up with the last cause. Once up, an outage is not fatal: requests get
 * 503 and the pool reconnects by itself when the database returns.
 *
 * <p>{@link #close()} stops in reverse start order: API first (in-flight requests finish), then the
 * purge, the status view, the ops server, the pool and the registry. Thread-safe.
 */
public final class WriterProcess implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WriterProcess.class);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration STARTUP_RETRY_PAUSE = Duration.ofSeconds(1);

  private final ProcessLifecycle components;
  private final ApiServer api;
  private final OpsServer ops;
  private final PrometheusMeterRegistry registry;

  private WriterProcess(
      ProcessLifecycle components, ApiServer api, OpsServer ops, PrometheusMeterRegistry registry) {
    this.components = components;
    this.api = api;
    this.ops = ops;
    this.registry = registry;
  }

  /** Starts a writer on the system clock. */
  public static WriterProcess start(WriterConfig config) {
    return start(config, Clock.systemUTC());
  }

  /**
   * Starts a writer; returns once the API accepts requests.
   *
   * @throws IllegalStateException the database stayed unreachable for the start-up timeout, or a
   *     server could not bind; everything started so far is closed again
   */
  public static WriterProcess start(WriterConfig config, Clock clock) {
    // The Java agent's or the embedding application's, when one is set; the API's no-op otherwise.
    return start(config, clock, Telemetry.globalIfSet());
  }

  /**
   * As {@link #start(WriterConfig, Clock)}, tracing requests with {@code openTelemetry} ({@link
   * WriterMain} passes the one {@code Telemetry.install} set up from {@code OTEL_*}).
   */
  public static WriterProcess start(WriterConfig config, Clock clock, OpenTelemetry openTelemetry) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    log.info("Starting the writer with {}", config.effective().render());
    ProcessLifecycle components = ProcessLifecycle.create("writer");
    try {
      PrometheusMeterRegistry registry = Metrics.newRegistry("writer");
      components.register("metrics registry", registry::close);
      HikariDataSource pool =
          components.register(
              "database pool", Databases.pool("writer", config.database(), registry));
      // The ops server comes first so /health answers during start-up: DOWN until the API listens
      // (a readiness probe must not route traffic to a writer that is still migrating).
      AtomicBoolean apiReady = new AtomicBoolean();
      OpsServer ops =
          components.register(
              "ops server",
              OpsServer.builder("writer", registry)
                  .endpoint(config.ops())
                  .healthCheck(Databases.healthCheck("database", pool))
                  .healthCheck(
                      HealthCheck.of(
                          "api",
                          () ->
                              apiReady.get()
                                  ? HealthCheck.Status.up("accepting requests")
                                  : HealthCheck.Status.down(
                                      "starting: waiting for the database and migrations")))
                  .stopTimeout(STOP_TIMEOUT)
                  .start());
      awaitDatabase(pool, config.database(), config.startup().startupTimeout());
      if (config.startup().migrateOnStart()) {
        // As the schemas' owner on a connection of its own when one is configured, so that the
        // pool's user (herald_writer) needs no right to change the schema.
        SchemaMigrator.migrate(
            config.startup().migration().map(Databases::unpooled).orElse(pool),
            HeraldSchema.WRITER,
            config.capture());
      }
      JobStore jobs =
          new JobStore(
              pool,
              new OutboxWriter(config.outboxRetention()),
              UuidV7.system(),
              clock,
              Json.mapper());
      if (config.status().isPresent()) {
        // After the migration (it needs V5) and before the API, so it stops after the API and
        // before the pool. Never blocks start-up: Kafka is reached in the background.
        StatusView status =
            components.register(
                "status view", StatusView.start(config.status().get(), pool, clock, registry));
        ops.addHealthCheck(status.healthCheck());
      }
      // Purges only what the settings ask for: the outbox with retention=keep, the inbox with the
      // status view; with neither it starts no thread.
      RetentionPurger purger =
          components.register(
              "retention purge", new RetentionPurger(pool, config.retention(), clock, registry));
      purger.start();
      PublicationApi handler =
          new PublicationApi(
              jobs,
              new SingleReservations(jobs, config.groupCommit(), registry),
              new BearerAuthenticator(config.tenantTokens()),
              config.api(),
              Json.mapper(),
              openTelemetry,
              // Trace ids must be random, not secret: a per-thread generator, no shared lock.
              () -> ThreadLocalRandom.current().nextLong(),
              registry);
      ApiServer api =
          components.register("api server", ApiServer.start(handler, config.http(), registry));
      apiReady.set(true);
      log.info(
          "Writer ready: API on port {}, /health and /metrics on port {}", api.port(), ops.port());
      return new WriterProcess(components, api, ops, registry);
    } catch (Exception e) {
      components.close();
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("the writer failed to start: " + e.getMessage(), e);
    }
  }

  /**
   * Waits until a connection validates, for at most {@code writer.db.startup-timeout}. Each attempt
   * is itself bounded by the pool's connect timeout.
   */
  private static void awaitDatabase(
      HikariDataSource pool, DatabaseConfig database, Duration timeout)
      throws InterruptedException {
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      SQLException failure;
      try (Connection connection = pool.getConnection()) {
        if (connection.isValid(5)) {
          if (attempt > 1) {
            log.info("PostgreSQL reachable after {} attempts", attempt);
          }
          return;
        }
        failure = new SQLException("connection did not validate");
      } catch (SQLException e) {
        failure = e;
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      if (waited.compareTo(timeout) >= 0) {
        throw new IllegalStateException(
            "PostgreSQL at "
                + database.jdbcUrl()
                + " not reachable within "
                + timeout
                + " ("
                + attempt
                + " attempts); last failure: "
                + failure.getMessage(),
            failure);
      }
      log.warn(
          "Waiting for PostgreSQL at {} (attempt {}, {} s of {} s): {}",
          database.jdbcUrl(),
          attempt,
          waited.toSeconds(),
          timeout.toSeconds(),
          failure.getMessage());
      Thread.sleep(STARTUP_RETRY_PAUSE.toMillis());
    }
  }

  public int apiPort() {
    return api.port();
  }

  public int opsPort() {
    return ops.port();
  }

  /** {@code http://localhost:<api port>}. */
  public URI apiUri() {
    return URI.create("http://localhost:" + api.port());
  }

  /** {@code http://localhost:<ops port>}. */
  public URI opsUri() {
    return URI.create("http://localhost:" + ops.port());
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    components.close();
  }
}
