package io.herald.writer;

import io.herald.config.ConfigException;
import io.herald.runtime.process.ProcessLifecycle;
import io.herald.runtime.telemetry.Telemetry;
import io.herald.writer.config.WriterConfig;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the writer: {@code java io.herald.writer.WriterMain [connect-config/writer.properties]}.
 * Environment variables override the file ({@code writer.http.port} &lt;- {@code
 * HERALD_WRITER_HTTP_PORT}); the standard {@code OTEL_*} variables switch tracing on
 * (docs/design.md, "Tracing"). Exits 2 on invalid configuration, 1 when start-up fails; SIGTERM
 * stops it gracefully.
 */
public final class WriterMain {

  private static final Logger log = LoggerFactory.getLogger(WriterMain.class);
  private static final String DEFAULT_CONFIG = "connect-config/writer.properties";

  private WriterMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path file = Path.of(args.length > 0 ? args[0] : DEFAULT_CONFIG);
    WriterConfig config;
    try {
      config = WriterConfig.load(file, System.getenv());
    } catch (ConfigException e) {
      log.error("Invalid writer configuration in {}: {}", file.toAbsolutePath(), e.getMessage());
      System.exit(2);
      return;
    }
    ProcessLifecycle lifecycle = ProcessLifecycle.start("writer");
    try {
      // First, so it closes last and flushes the spans of the requests that finished before.
      Telemetry telemetry = lifecycle.register("telemetry", Telemetry.install("herald-writer"));
      lifecycle.register(
          "writer", WriterProcess.start(config, Clock.systemUTC(), telemetry.openTelemetry()));
    } catch (RuntimeException e) {
      log.error("The writer failed to start", e);
      lifecycle.close();
      System.exit(1);
    }
    lifecycle.awaitShutdown();
  }
}
