package io.herald.relay;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.common.json.Json;
import io.herald.config.ConfigException;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.ProducerSettings;
import io.herald.relay.ha.LeaderLock;
import io.herald.relay.health.RelayHealth;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import io.herald.relay.offsets.OffsetTopic;
import io.herald.relay.slot.FailoverSlot;
import io.herald.relay.slot.PostgresSlots;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.Databases;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.OpsServer;
import io.herald.runtime.process.ProcessLifecycle;
import io.herald.runtime.telemetry.Telemetry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the relay: {@code java io.herald.relay.RelayMain [connect-config/relay.properties]}.
 *
 * <p>Exit codes: 0 stopped on request, 1 engine failure (restart it), 2 refused to start because
 * streaming could skip events (an operator must act; the message says what to do), 3 lost the
 * leader lock and the engine would not stop (restart it: it rejoins as a standby; a relay that
 * loses its lock otherwise stands by again without exiting), 4 invalid configuration. On SIGTERM
 * the JVM exits with 143 after the graceful stop.
 */
public final class RelayMain {

  public static final int EXIT_CONFIG = 4;

  private static final Logger log = LoggerFactory.getLogger(RelayMain.class);

  private RelayMain() {}

  public static void main(String[] args) {
    Path file = Path.of(args.length > 0 ? args[0] : "connect-config/relay.properties");
    RelayConfig config;
    try {
      config = RelayConfig.load(file, System.getenv());
    } catch (ConfigException e) {
      log.error("Invalid relay configuration in {}: {}", file, e.getMessage());
      System.exit(EXIT_CONFIG);
      return;
    }
    System.exit(run(config));
  }

  /** Runs the relay until it stops; returns the exit code. */
  static int run(RelayConfig config) {
    log.info("Relay configuration:\n{}", config.effective().render());
    EngineProperties engine = config.engine();
    ProcessLifecycle lifecycle = ProcessLifecycle.start("relay");
    // OTEL_* works alike in all three processes (docs/design.md, "Tracing"); the relay records no
    // spans of its own: the trace context rides through it in the outbox row and Kafka headers.
    lifecycle.register("telemetry", Telemetry.install("herald-relay"));
    Telemetry.noopGlobal();
    Clock clock = Clock.systemUTC();
    PrometheusMeterRegistry registry = Metrics.newRegistry("relay");
    lifecycle.register("metrics", registry::close);
    RelayStatus status = new RelayStatus(clock);
    RelayMetrics metrics = new RelayMetrics(registry, status);
    DatabaseConfig database = config.database();
    HikariDataSource pool =
        lifecycle.register("database pool", Databases.pool("relay", database, registry));
    PostgresSlots slots = new PostgresSlots(pool, engine.slotName(), Json.mapper());
    RelayHealth health =
        new RelayHealth(status, config.slotLag().warnBytes(), engine.heartbeatInterval());
    lifecycle.register(
        "ops server",
        OpsServer.builder("relay", registry)
            .endpoint(config.ops())
            .healthCheck(health.relay())
            .healthCheck(health.slotLag())
            .healthCheck(health.slotFailover())
            .start());
    RelayProcess process =
        new RelayProcess(
            config,
            slots,
            config.slotFailover()
                ? Optional.of(new FailoverSlot(pool, database, engine.slotName()))
                : Optional.empty(),
            new LeaderLock(database, config.standby()),
            new OffsetTopic(
                ProducerSettings.clientSettings(config.producer()),
                engine.offsetTopic(),
                Json.mapper()),
            status,
            metrics,
            clock);
    lifecycle.register("relay", process);
    int code = process.run();
    lifecycle.close();
    return code;
  }
}
