package io.herald.runtime.telemetry;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's OpenTelemetry, configured by the standard {@code OTEL_*} environment variables (or
 * {@code otel.*} system properties) through the SDK's autoconfiguration (docs/design.md,
 * "Tracing"). Herald adds no keys of its own.
 *
 * <ul>
 *   <li>Off by default: with {@code OTEL_TRACES_EXPORTER} unset or {@code none} the process gets
 *       the API's no-op, so no span is recorded and every trace header is passed on unchanged, as
 *       without OpenTelemetry.
 *   <li>With an exporter ({@code otlp}: http/protobuf to {@code OTEL_EXPORTER_OTLP_ENDPOINT};
 *       {@code logging-otlp}: one OTLP JSON line per batch in the log; {@code console}) the SDK
 *       records and exports spans; metrics and logs are not exported unless asked for ({@code
 *       OTEL_METRICS_EXPORTER}, {@code OTEL_LOGS_EXPORTER}): Herald's metrics are Prometheus'.
 *   <li>{@code service.name} defaults to the name given ({@code herald-writer}); {@code
 *       OTEL_SERVICE_NAME} overrides it.
 *   <li>An OpenTelemetry already installed globally (by the OpenTelemetry Java agent) is used as it
 *       is, and neither configured nor closed here.
 * </ul>
 *
 * <pre>{@code
 * Telemetry telemetry = lifecycle.register("telemetry", Telemetry.install("herald-writer"));
 * WriterProcess.start(config, clock, telemetry.openTelemetry());
 * }</pre>
 *
 * <p>Register it first with the process's lifecycle, so it closes last and flushes the spans of
 * everything that stopped before it. Thread-safe.
 */
public final class Telemetry implements AutoCloseable {

  /** The variable that switches tracing on, and its system property. */
  static final String TRACES_EXPORTER_ENV = "OTEL_TRACES_EXPORTER";

  static final String TRACES_EXPORTER_PROPERTY = "otel.traces.exporter";

  private static final Logger log = LoggerFactory.getLogger(Telemetry.class);

  private final OpenTelemetry openTelemetry;
  private final OpenTelemetrySdk owned;

  private Telemetry(OpenTelemetry openTelemetry, OpenTelemetrySdk owned) {
    this.openTelemetry = openTelemetry;
    this.owned = owned;
  }

  /** Installs this process's OpenTelemetry from the environment and system properties. */
  public static Telemetry install(String serviceName) {
    return install(serviceName, System.getenv(), System.getProperties());
  }

  /**
   * Makes the API's no-op the global OpenTelemetry, unless one is set already (the Java agent's).
   * For a process that records no spans through the global but embeds code that reads it: making
   * Debezium's outbox router (the relay's engine, {@code herald relay recover}) reads it, and an
   * unset global with the SDK's autoconfiguration on the class path prints a notice that the
   * autoconfiguration is off, through java.util.logging on stderr: outside the relay's log format,
   * and before a command's own output. Call it from {@code main}, before anything reads the global.
   */
  public static synchronized void noopGlobal() {
    if (!GlobalOpenTelemetry.isSet()) {
      GlobalOpenTelemetry.set(OpenTelemetry.noop());
      globalIsOurNoop = true;
    }
  }

  /**
   * Whether {@link #noopGlobal} set the global, so that {@link #install} does not take it for the
   * Java agent's and trace through a no-op.
   */
  private static volatile boolean globalIsOurNoop;

  /**
   * The global OpenTelemetry if something has set it (the Java agent, or an application that embeds
   * a writer or consumer and set its own), the API's no-op otherwise, and the global left unset.
   * {@code GlobalOpenTelemetry.get()} with none set makes the no-op the global, after which the
   * embedding application's own {@code GlobalOpenTelemetry.set} fails, and with the SDK's
   * autoconfiguration on the class path prints a notice on stderr.
   */
  public static OpenTelemetry globalIfSet() {
    return GlobalOpenTelemetry.isSet() ? GlobalOpenTelemetry.get() : OpenTelemetry.noop();
  }

  static Telemetry install(String serviceName, Map<String, String> env, Properties properties) {
    Objects.requireNonNull(serviceName, "serviceName");
    if (GlobalOpenTelemetry.isSet() && !globalIsOurNoop) {
      log.info("Tracing through the OpenTelemetry installed globally (the Java agent)");
      return new Telemetry(GlobalOpenTelemetry.get(), null);
    }
    String exporter = tracesExporter(env, properties);
    if (exporter.equals("none")) {
      log.info(
          "Tracing off ({} unset or none): trace headers are passed on unchanged",
          TRACES_EXPORTER_ENV);
      return new Telemetry(OpenTelemetry.noop(), null);
    }
    OpenTelemetrySdk sdk =
        AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> defaults(serviceName))
            .build()
            .getOpenTelemetrySdk();
    log.info(
        "Tracing on: spans exported by {} as service {} unless OTEL_SERVICE_NAME says otherwise",
        exporter,
        serviceName);
    return new Telemetry(sdk, sdk);
  }

  /**
   * The defaults under every {@code OTEL_*} variable and {@code otel.*} property (which win): the
   * service name, no metrics or logs export, OTLP over http/protobuf.
   */
  static Map<String, String> defaults(String serviceName) {
    return Map.of(
        "otel.service.name",
        serviceName,
        TRACES_EXPORTER_PROPERTY,
        "none",
        "otel.metrics.exporter",
        "none",
        "otel.logs.exporter",
        "none",
        // The SDK's own default is grpc; http/protobuf is what most collectors and the Java
        // agent take by default (port 4318), and needs no gRPC stack.
        "otel.exporter.otlp.protocol",
        "http/protobuf");
  }

  /**
   * The span exporter asked for, as the autoconfiguration reads it (system property first, then the
   * environment), lower case; {@code none} when neither says.
   */
  static String tracesExporter(Map<String, String> env, Properties properties) {
    String value = properties.getProperty(TRACES_EXPORTER_PROPERTY);
    if (value == null || value.isBlank()) {
      value = env.get(TRACES_EXPORTER_ENV);
    }
    return value == null || value.isBlank() ? "none" : value.trim().toLowerCase(Locale.ROOT);
  }

  /** The OpenTelemetry to trace with: the SDK's, the agent's, or the no-op. */
  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /** Whether this process installed an SDK (an exporter was asked for). */
  public boolean installed() {
    return owned != null;
  }

  /** Flushes and shuts the SDK down, when this process installed one; waits up to 10 s. */
  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }
}
