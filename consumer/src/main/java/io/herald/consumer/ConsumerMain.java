package io.herald.consumer;

import io.herald.config.ConfigException;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.runtime.process.ProcessLifecycle;
import io.herald.runtime.telemetry.Telemetry;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer process: {@code java io.herald.consumer.ConsumerMain
 * [connect-config/consumer.properties]}. Environment variables {@code HERALD_*} override the file;
 * the standard {@code OTEL_*} variables switch tracing on (docs/design.md, "Tracing"). Stops
 * gracefully on SIGTERM.
 */
public final class ConsumerMain {

  private static final Logger log = LoggerFactory.getLogger(ConsumerMain.class);

  private ConsumerMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path file = Path.of(args.length > 0 ? args[0] : "connect-config/consumer.properties");
    ConsumerConfig config;
    try {
      config = ConsumerConfig.load(file, System.getenv());
    } catch (ConfigException e) {
      log.error("Invalid configuration in {}: {}", file, e.getMessage());
      System.exit(2);
      return;
    }
    log.info("Effective configuration:\n{}", config.effective().render());
    ProcessLifecycle lifecycle = ProcessLifecycle.start("consumer");
    // First, so it closes last and flushes the spans of the deliveries that finished before.
    Telemetry telemetry = lifecycle.register("telemetry", Telemetry.install("herald-consumer"));
    lifecycle.register("consumer", HeraldConsumer.start(config, telemetry.openTelemetry()));
    lifecycle.awaitShutdown();
  }
}
