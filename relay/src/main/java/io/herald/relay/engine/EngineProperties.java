package io.herald.relay.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The embedded engine's properties: Herald's defaults, overlaid by the {@code debezium.source.*},
 * {@code debezium.transforms.*} and {@code debezium.predicates.*} pass-through settings, then
 * checked for settings that would break the no-lost-event guarantee.
 *
 * <p>Defaults and why:
 *
 * <ul>
 *   <li>{@code snapshot.mode=no_data}: the slot is created with the schema, so a first start
 *       streams from the slot's {@code confirmed_flush_lsn} and delivers every row committed
 *       before. ({@code initial} on a slot with a backlog streams from the current WAL position
 *       instead and loses rows already deleted from the outbox: refused.)
 *   <li>{@code offset.storage=KafkaOffsetBackingStore}: offsets live in a compacted Kafka topic,
 *       next to the events they describe (one system's durability decides both), readable by a
 *       standby on another host, and the relay stores its slot identity in the same topic.
 *   <li>{@code offset.flush.interval.ms=1000}: after a crash at most about a second of events is
 *       re-sent; flushing costs one small Kafka write per interval.
 *   <li>{@code poll.interval.ms=20}: how long the engine sleeps when the queue is empty; it bounds
 *       the commit-to-Kafka latency of an idle relay at a small idle cost (Debezium's 500 ms
 *       default gives a p99 near a second).
 *   <li>{@code heartbeat.interval.ms=10000} with an upsert into {@code herald_relay.heartbeat} (in
 *       the publication): the slot's position advances while the outbox is idle.
 *   <li>{@code extended.headers.enabled=false}: otherwise Debezium 3.6 adds {@code
 *       __debezium.context.*} headers to every event.
 *   <li>{@code slot.retry.delay.ms=2000}: a standby taking over retries the slot every two seconds
 *       while the dead leader's walsender is still being torn down.
 * </ul>
 */
public final class EngineProperties {

  public static final String ENGINE_NAME = "herald-relay";
  public static final String KAFKA_OFFSET_STORE =
      "org.apache.kafka.connect.storage.KafkaOffsetBackingStore";
  public static final String HEARTBEAT_TABLE = "herald_relay.heartbeat";

  private static final String HEARTBEAT_QUERY =
      "INSERT INTO herald_relay.heartbeat (id, beat_at) VALUES ('%s', now())"
          + " ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at";

  private final Map<String, String> properties;

  private EngineProperties(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
  }

  /**
   * Builds and checks the engine properties.
   *
   * @param source {@code debezium.source.*}, prefix stripped
   * @param transforms transform names in order
   * @param transformSettings {@code debezium.transforms.*}, prefix stripped
   * @param predicates predicate names
   * @param predicateSettings {@code debezium.predicates.*}, prefix stripped
   * @param bootstrapServers Kafka brokers, for the offset store
   * @throws IllegalArgumentException listing every contradiction, each naming its key
   */
  public static EngineProperties from(
      Map<String, String> source,
      List<String> transforms,
      Map<String, String> transformSettings,
      List<String> predicates,
      Map<String, String> predicateSettings,
      String bootstrapServers) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("name", ENGINE_NAME);
    p.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.put("plugin.name", "pgoutput");
    p.put("snapshot.mode", "no_data");
    p.put("publication.name", "herald_outbox");
    p.put("publication.autocreate.mode", "disabled");
    p.put("slot.name", "herald_relay");
    p.put("slot.drop.on.stop", "false");
    p.put("slot.retry.delay.ms", "2000");
    p.put("slot.max.retries", "30");
    p.put("topic.prefix", "herald");
    p.put("table.include.list", "writer\\.outbox,consumer\\.outbox,herald_relay\\.heartbeat");
    p.put("tombstones.on.delete", "false");
    p.put("extended.headers.enabled", "false");
    p.put("offset.storage", KAFKA_OFFSET_STORE);
    p.put("offset.storage.topic", "herald.relay.offsets");
    p.put("offset.storage.partitions", "1");
    p.put("offset.storage.replication.factor", "-1");
    p.put("offset.flush.interval.ms", "1000");
    p.put("offset.flush.timeout.ms", "10000");
    p.put("poll.interval.ms", "20");
    p.put("heartbeat.interval.ms", "10000");
    p.putAll(source);
    p.putIfAbsent("heartbeat.action.query", String.format(HEARTBEAT_QUERY, p.get("slot.name")));
    if (!transforms.isEmpty()) {
      p.put("transforms", String.join(",", transforms));
      transformSettings.forEach((key, value) -> p.put("transforms." + key, value));
    }
    if (!predicates.isEmpty()) {
      p.put("predicates", String.join(",", predicates));
      predicateSettings.forEach((key, value) -> p.put("predicates." + key, value));
    }
    p.put("bootstrap.servers", bootstrapServers);
    check(p, source);
    return new EngineProperties(p);
  }

  private static void check(Map<String, String> p, Map<String, String> source) {
    List<String> problems = new ArrayList<>();
    require(p, "plugin.name", "pgoutput", "the schema creates a pgoutput slot", problems);
    require(
        p,
        "snapshot.mode",
        "no_data",
        "any snapshot mode streams from the current WAL position on a slot with a backlog and loses"
            + " rows committed before the relay first ran",
        problems);
    require(
        p,
        "slot.drop.on.stop",
        "false",
        "dropping the slot on stop loses every event committed while the relay is down",
        problems);
    require(
        p,
        "extended.headers.enabled",
        "false",
        "Debezium would add __debezium.context.* headers to every event",
        problems);
    require(
        p,
        "offset.storage",
        KAFKA_OFFSET_STORE,
        "the relay keeps its slot identity next to the offsets in the offsets topic",
        problems);
    for (String key : List.of("database.hostname", "database.user", "database.dbname")) {
      if (isBlank(p.get(key))) {
        problems.add("debezium.source." + key + ": required key is missing");
      }
    }
    if (source.containsKey("bootstrap.servers")) {
      problems.add(
          "debezium.source.bootstrap.servers: set the brokers once, in relay.kafka.bootstrap-servers");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  private static void require(
      Map<String, String> p, String key, String expected, String why, List<String> problems) {
    String actual = p.get(key);
    if (!expected.equalsIgnoreCase(actual == null ? "" : actual.strip())) {
      problems.add(
          "debezium.source."
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

  /** A copy for {@code DebeziumEngine.Builder#using(Properties)}. */
  public Properties toProperties() {
    Properties copy = new Properties();
    copy.putAll(properties);
    return copy;
  }

  public String get(String key) {
    return properties.get(key);
  }

  public String slotName() {
    return properties.get("slot.name");
  }

  public String topicPrefix() {
    return properties.get("topic.prefix");
  }

  public String offsetTopic() {
    return properties.get("offset.storage.topic");
  }

  public int offsetTopicPartitions() {
    return Integer.parseInt(properties.get("offset.storage.partitions"));
  }

  public short offsetTopicReplicationFactor() {
    return Short.parseShort(properties.get("offset.storage.replication.factor"));
  }

  /** Topic of Debezium's heartbeat records ({@code topic.heartbeat.prefix.topic.prefix}). */
  public String heartbeatTopic() {
    return properties.getOrDefault("topic.heartbeat.prefix", "__debezium-heartbeat")
        + "."
        + topicPrefix();
  }

  /** Topic the heartbeat table's change records carry before routing. */
  public String heartbeatTableTopic() {
    return topicPrefix() + "." + HEARTBEAT_TABLE;
  }

  /** JDBC URL of the captured database, from the connector's connection settings. */
  public String jdbcUrl() {
    return "jdbc:postgresql://"
        + properties.get("database.hostname")
        + ":"
        + properties.getOrDefault("database.port", "5432")
        + "/"
        + properties.get("database.dbname");
  }

  public String databaseName() {
    return properties.get("database.dbname");
  }

  public String databaseUser() {
    return properties.get("database.user");
  }

  public String databasePassword() {
    return properties.get("database.password");
  }
}
