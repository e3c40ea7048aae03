package io.herald.relay.config;

import static io.herald.relay.config.RelayConfig.DEBEZIUM_SINK_KAFKA_PRODUCER;
import static io.herald.relay.config.RelayConfig.DEBEZIUM_SOURCE;

import io.herald.config.ConfigProblems;
import io.herald.relay.debezium.DebeziumPatches;
import io.herald.relay.engine.EngineProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The part of the relay's one validation that reads the assembled engine properties: settings under
 * {@code debezium.source.*} that would break the no-lost-event guarantee, leave outbox events
 * unrouted, or repeat a setting the relay owns. Each problem names its {@code debezium.source.*}
 * key and value. Stateless.
 */
final class EngineChecks {

  private EngineChecks() {}

  /**
   * Records every problem of {@code engine}.
   *
   * @param source {@code debezium.source.*} as given, prefix stripped
   * @param kafkaClient the sink's Kafka client settings, which the offset store takes too
   */
  static void check(
      EngineProperties engine,
      Map<String, String> source,
      List<String> transforms,
      List<String> predicates,
      Map<String, ?> kafkaClient,
      ConfigProblems problems) {
    require(engine, "plugin.name", "pgoutput", "the schema creates a pgoutput slot", problems);
    require(
        engine,
        "snapshot.mode",
        "no_data",
        "any snapshot mode streams from the current WAL position on a slot with a backlog and loses"
            + " rows committed before the relay first ran",
        problems);
    require(
        engine,
        "slot.drop.on.stop",
        "false",
        "dropping the slot on stop loses every event committed while the relay is down",
        problems);
    require(
        engine,
        "extended.headers.enabled",
        "false",
        "Debezium would add __debezium.context.* headers to every event",
        problems);
    require(
        engine,
        "offset.storage",
        EngineProperties.KAFKA_OFFSET_STORE,
        "the relay keeps its slot identity next to the offsets in the offsets topic",
        problems);
    String connector = source.getOrDefault("connector.class", DebeziumPatches.STOCK_CONNECTOR);
    if (!DebeziumPatches.POSTGRES_CONNECTORS.contains(connector.strip())) {
      problems.add(
          DEBEZIUM_SOURCE
              + "connector.class="
              + connector
              + " is not allowed: the relay runs "
              + DebeziumPatches.STOCK_CONNECTOR
              + " (as "
              + DebeziumPatches.ON.connectorClass()
              + " with "
              + RelayConfig.ENGINE_DEBEZIUM_PATCHES.name()
              + "=true)");
    }
    // The routers' predicates name the change topics Debezium's own strategy gives the outbox
    // tables; any other naming would leave every outbox event unrouted, on a topic nobody reads.
    String naming = engine.get("topic.naming.strategy");
    if (naming != null && !DebeziumPatches.ROUTABLE_TOPIC_NAMINGS.contains(naming.strip())) {
      problems.add(
          DEBEZIUM_SOURCE
              + "topic.naming.strategy="
              + naming
              + " is not allowed: the outbox routers select events by the change topics of "
              + DebeziumPatches.STOCK_TOPIC_NAMING
              + " (cached with "
              + RelayConfig.ENGINE_DEBEZIUM_PATCHES.name()
              + "=true)");
    }
    String delimiter = engine.get("topic.delimiter");
    if (delimiter != null && !delimiter.equals(".")) {
      problems.add(
          DEBEZIUM_SOURCE
              + "topic.delimiter="
              + delimiter
              + " is not allowed: the outbox routers select events by change topics joined with"
              + " '.' ("
              + engine.topicPrefix()
              + ".writer.outbox)");
    }
    if (engine.maxBatchSize() < 0) {
      problems.add(
          DEBEZIUM_SOURCE
              + "max.batch.size="
              + engine.get("max.batch.size")
              + " is not a positive whole number (the sink pipelines batches of this size)");
    }
    String heartbeat = engine.get("heartbeat.interval.ms");
    if (heartbeat != null && !heartbeat.strip().matches("-?\\d{1,18}")) {
      problems.add(
          DEBEZIUM_SOURCE
              + "heartbeat.interval.ms="
              + heartbeat
              + " is not a whole number of milliseconds");
    }
    String queueBytes = engine.get("max.queue.size.in.bytes");
    if (!engine.patches().keepsQueueByteBound()
        && !isBlank(queueBytes)
        && !queueBytes.strip().equals("0")) {
      problems.add(
          DEBEZIUM_SOURCE
              + "max.queue.size.in.bytes="
              + queueBytes
              + " is not supported: the relay's queue poll does not keep Debezium's byte count;"
              + " bound the queue with "
              + DEBEZIUM_SOURCE
              + "max.queue.size (or run stock Debezium, "
              + RelayConfig.ENGINE_DEBEZIUM_PATCHES.name()
              + "=false)");
    }
    checkColumnLists(engine, problems);
    for (String name : EngineProperties.ROUTERS) {
      if (transforms.contains(name) || predicates.contains(name)) {
        problems.add(
            RelayConfig.DEBEZIUM_TRANSFORMS.name()
                + " / "
                + RelayConfig.DEBEZIUM_PREDICATES.name()
                + ": '"
                + name
                + "' is the relay's own outbox router");
      }
    }
    if (source.containsKey("bootstrap.servers")) {
      problems.add(
          DEBEZIUM_SOURCE
              + "bootstrap.servers="
              + source.get("bootstrap.servers")
              + " is set by Herald: set the brokers once, in "
              + RelayConfig.KAFKA_BOOTSTRAP_SERVERS.name());
    }
    kafkaClient.keySet().stream()
        .filter(key -> !key.equals("bootstrap.servers") && source.containsKey(key))
        .sorted()
        .forEach(
            key ->
                problems.add(
                    DEBEZIUM_SOURCE
                        + key
                        + ": set Kafka client settings once, in "
                        + DEBEZIUM_SINK_KAFKA_PRODUCER
                        + key));
  }

  private static void checkColumnLists(EngineProperties engine, ConfigProblems problems) {
    for (String list : List.of("column.exclude.list", "column.include.list")) {
      String value = engine.get(list);
      if (isBlank(value)) {
        continue;
      }
      List<Pattern> patterns = new ArrayList<>();
      try {
        for (String regex : value.split(",")) {
          if (!regex.isBlank()) {
            patterns.add(Pattern.compile(regex.strip(), Pattern.CASE_INSENSITIVE));
          }
        }
      } catch (PatternSyntaxException e) {
        problems.add(
            DEBEZIUM_SOURCE
                + list
                + "="
                + value
                + " is not a list of regular expressions: "
                + e.getDescription());
        continue;
      }
      for (String table : List.of("writer.outbox", "consumer.outbox")) {
        for (String column : EngineProperties.ROUTED_COLUMNS) {
          String name = table + "." + column;
          boolean matched = patterns.stream().anyMatch(re -> re.matcher(name).matches());
          if (matched == list.equals("column.exclude.list")) {
            problems.add(
                DEBEZIUM_SOURCE
                    + list
                    + "="
                    + value
                    + " leaves out "
                    + name
                    + ", which the outbox router needs");
          }
        }
      }
    }
  }

  private static void require(
      EngineProperties engine, String key, String expected, String why, ConfigProblems problems) {
    String actual = engine.get(key);
    if (!expected.equalsIgnoreCase(actual == null ? "" : actual.strip())) {
      problems.add(
          DEBEZIUM_SOURCE
              + key
              + "="
              + actual
              + " is not allowed: the relay needs "
              + expected
              + " ("
              + why
              + ")");
    }
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
