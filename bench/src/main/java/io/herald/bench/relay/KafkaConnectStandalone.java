package io.herald.bench.relay;

import io.herald.config.ConfigSource;
import io.herald.devstack.FreePort;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.it.RelayFixture;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Kafka Connect standalone ({@code org.apache.kafka.connect.cli.ConnectStandalone}, from {@code
 * connect-runtime} on this class path) as a child JVM running what a user would deploy instead of
 * the relay: stock Debezium's PostgreSQL connector with the relay's own settings and outbox
 * EventRouters. The connector's properties are the relay's engine properties ({@link
 * RelayConfig#engine()} of the shipped relay.properties with Herald's Debezium patches off), so
 * slot, publication, snapshot mode, routing, heartbeat and batch sizes are the relay's; the
 * engine's offset settings go to the worker (a file offset store, flushed as often as the relay's);
 * the relay's shipped producer settings go to the worker's producer. Key, value and headers leave
 * as strings, the bytes the relay writes.
 */
public final class KafkaConnectStandalone {

  /** What Kafka's {@code bin/connect-standalone.sh} starts a worker with (kafka-run-class.sh). */
  public static final List<String> STOCK_JVM =
      List.of(
          "-Xms256M",
          "-Xmx2G",
          "-server",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-Djava.awt.headless=true");

  private static final String MAIN = "org.apache.kafka.connect.cli.ConnectStandalone";
  private static final String PRODUCER_PREFIX = RelayConfig.DEBEZIUM_SINK_KAFKA_PRODUCER;
  private static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

  private KafkaConnectStandalone() {}

  /**
   * Starts a worker whose connector streams {@code slot} (which must exist) of the fixture's
   * database into the fixture's topics; its files and log go to {@code dir}.
   */
  public static ChildJvm start(RelayFixture fixture, String slot, List<String> jvmOptions, Path dir)
      throws IOException {
    Files.createDirectories(dir);
    StackContext context = fixture.context();
    Map<String, String> shipped = ShippedConfig.of("relay").properties();
    Map<String, String> relay = new LinkedHashMap<>(shipped);
    relay.putAll(
        Map.ofEntries(
            Map.entry(RelayConfig.ENGINE_DEBEZIUM_PATCHES.name(), "false"),
            Map.entry(RelayConfig.KAFKA_BOOTSTRAP_SERVERS.name(), context.bootstrapServers()),
            Map.entry(RelayConfig.TOPIC_PUBLICATION_EVENTS.name(), fixture.publicationEvents),
            Map.entry(RelayConfig.TOPIC_DELIVERY_EVENTS.name(), fixture.deliveryEvents),
            Map.entry(source("database.hostname"), context.stack().postgres().host()),
            Map.entry(source("database.port"), Integer.toString(context.stack().postgres().port())),
            Map.entry(source("database.dbname"), context.database()),
            Map.entry(source("database.user"), context.user()),
            Map.entry(source("database.password"), context.password()),
            Map.entry(source("slot.name"), slot),
            Map.entry(source("publication.name"), context.publication())));
    Properties engine = RelayConfig.from(ConfigSource.of(relay, Map.of())).engine().toProperties();

    Properties worker = new Properties();
    worker.setProperty("bootstrap.servers", context.bootstrapServers());
    worker.setProperty("key.converter", STRING_CONVERTER);
    worker.setProperty("value.converter", STRING_CONVERTER);
    worker.setProperty(
        "header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
    worker.setProperty("offset.storage.file.filename", dir.resolve("offsets").toString());
    worker.setProperty("offset.flush.interval.ms", engine.getProperty("offset.flush.interval.ms"));
    worker.setProperty("offset.flush.timeout.ms", engine.getProperty("offset.flush.timeout.ms"));
    // The connector and its transforms are on the class path, not in a plugin directory.
    worker.setProperty("plugin.discovery", "only_scan");
    worker.setProperty("listeners", "http://127.0.0.1:" + FreePort.find());
    shipped.forEach(
        (key, value) -> {
          if (key.startsWith(PRODUCER_PREFIX)) {
            worker.setProperty("producer." + key.substring(PRODUCER_PREFIX.length()), value);
          }
        });

    Properties connector = new Properties();
    engine.forEach(
        (key, value) -> {
          String name = (String) key;
          // The offset store and its Kafka address are the worker's, set above.
          if (!name.startsWith("offset.") && !name.equals("bootstrap.servers")) {
            connector.setProperty(name, (String) value);
          }
        });
    connector.setProperty("tasks.max", "1");
    // Debezium's heartbeat records and the heartbeat table's change events go to topics of their
    // own, which the relay drops and Connect publishes: Connect creates them as a deployment would
    // (without, its producer blocks on their metadata and the task stalls).
    connector.setProperty("topic.creation.default.partitions", "1");
    connector.setProperty("topic.creation.default.replication.factor", "1");

    Path workerFile = write(worker, dir.resolve("worker.properties"));
    Path connectorFile = write(connector, dir.resolve("connector.properties"));
    ChildJvm.Builder builder =
        ChildJvm.builder("connect", MAIN)
            .jvmOptions(jvmOptions)
            .args(workerFile.toString(), connectorFile.toString())
            .logFile(dir.resolve("connect.log"));
    Path logback = Path.of("logback-bench.xml");
    if (Files.exists(logback)) {
      builder.logbackConfig(logback);
    }
    return builder.start();
  }

  private static String source(String key) {
    return RelayConfig.DEBEZIUM_SOURCE + key;
  }

  private static Path write(Properties properties, Path file) throws IOException {
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "generated by the bench suite's B2");
    }
    return file.toAbsolutePath();
  }
}
