package io.herald.relay.engine;

import io.herald.relay.debezium.DebeziumPatches;
import io.herald.relay.debezium.StreamIdleWait;
import io.herald.runtime.db.DatabaseConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The embedded engine's properties: Herald's defaults, overlaid by the {@code debezium.source.*},
 * {@code debezium.transforms.*} and {@code debezium.predicates.*} pass-through settings. Built and
 * checked by the relay's configuration ({@code RelayConfig}), which refuses settings that would
 * break the no-lost-event guarantee; this class only assembles them.
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
 *   <li>{@code offset.flush.interval.ms=250}: after a crash only the events published since the
 *       last commit (a quarter second's worth) are re-sent; a commit is one small write to the
 *       compacted offsets topic.
 *   <li>{@code linger.ms=0}, used only by the offset store's producer: the engine commits offsets
 *       on the thread that hands batches to the sink and waits for the write, so every event that
 *       arrives meanwhile waits too. At Kafka's default linger of 5 ms each of the four commits a
 *       second stalled the relay at least 5 ms: at 1,000 events/s a cluster of late events every
 *       250 ms (docs/benchmarks-history.md, "The offset commits at 1,000 events/s").
 *   <li>{@code poll.interval.ms=10}: how long Debezium's streaming thread sleeps whenever the
 *       replication stream has been dry for 5 reads. While events trickle in, that sleep is what an
 *       event waits before it is read; once the stream has been quiet for {@code
 *       relay.stream.idle-after}, the reads themselves wait on the socket ({@link
 *       DebeziumPatches#streamIdleWait}) and the interval no longer sets the idle cost: a trickle's
 *       p99 is several times lower at 10 than at 30, for the same idle cost
 *       (docs/benchmarks-history.md, "Relay: draining a backlog").
 *   <li>{@code max.queue.size=2048}, {@code max.batch.size=512}: the engine takes whatever is
 *       queued as soon as it is queued, so batches are as large as the backlog makes them; a
 *       shorter queue than Debezium's 8,192 keeps the heap's live set small (young collections copy
 *       it): it drained faster at 2,048 than at 8,192 and at 1,024 (docs/benchmarks-history.md,
 *       "Relay: draining a backlog").
 *   <li>{@code column.exclude.list}: the outbox columns no router reads ({@code occurred_at}) are
 *       left out of the change events: Debezium would parse and re-format it for every row.
 *   <li>{@code heartbeat.interval.ms=10000} with an upsert into {@code herald_relay.heartbeat} (in
 *       the publication): the slot's position advances while the outbox is idle.
 *   <li>{@code extended.headers.enabled=false}: otherwise Debezium 3.6 adds {@code
 *       __debezium.context.*} headers to every event.
 *   <li>{@code slot.retry.delay.ms=2000}: a standby taking over retries the slot every two seconds
 *       while the dead leader's walsender is still being torn down.
 *   <li>Herald's Debezium patches ({@link DebeziumPatches}, {@code relay.engine.debezium-patches}):
 *       the same events for less work per event on Debezium's streaming thread, which bounds the
 *       drain rate; with the patches off, Debezium's stock connector, source block, topic naming
 *       and Kafka's {@code TopicNameMatches}.
 * </ul>
 *
 * <p>The outbox routing is the contract of DESIGN.md, so it is set here rather than in the property
 * file: one {@code EventRouter} per outbox table (selected by a predicate on the table's change
 * topic, {@link DebeziumPatches#topicPredicate}), key {@code aggregate_id}, value the {@code
 * payload} JSON text, headers {@code id}, {@code eventType}, {@code tenant}, {@code traceparent},
 * {@code tracestate}, topic {@code relay.topics.publication-events} for {@code writer.outbox} and
 * {@code relay.topics.delivery-events} for {@code consumer.outbox}. Transforms named in {@code
 * debezium.transforms} run after these.
 */
public final class EngineProperties {

  public static final String ENGINE_NAME = "herald-relay";
  public static final String KAFKA_OFFSET_STORE =
      "org.apache.kafka.connect.storage.KafkaOffsetBackingStore";
  public static final String HEARTBEAT_TABLE = "herald_relay.heartbeat";

  private static final String HEARTBEAT_QUERY =
      "INSERT INTO herald_relay.heartbeat (id, beat_at) VALUES ('%s', now())"
          + " ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at";

  /**
   * Outbox columns the routers never read: left out of the change events, so the streaming thread
   * does not parse and re-format each row's {@code occurred_at} (a {@code timestamptz} becomes a
   * {@code ZonedTimestamp} string). The router takes the event time from the change event itself.
   */
  static final String OUTBOX_COLUMNS_NOT_ROUTED =
      "writer\\.outbox\\.occurred_at,consumer\\.outbox\\.occurred_at";

  /** The outbox columns the routers read (event id, key, payload, topic, headers). */
  public static final List<String> ROUTED_COLUMNS =
      List.of(
          "id",
          "aggregate_id",
          "aggregate_type",
          "payload",
          "event_type",
          "tenant_id",
          "trace_parent",
          "trace_state");

  static final String WRITER_ROUTER = "heraldWriterOutbox";
  static final String CONSUMER_ROUTER = "heraldConsumerOutbox";

  /** The relay's own outbox routers, as transform and predicate names. */
  public static final List<String> ROUTERS = List.of(WRITER_ROUTER, CONSUMER_ROUTER);

  private static final String HEADERS =
      "event_type:header:eventType,tenant_id:header:tenant,"
          + "trace_parent:header:traceparent,trace_state:header:tracestate";

  private final Map<String, String> properties;
  private final DebeziumPatches patches;

  private EngineProperties(Map<String, String> properties, DebeziumPatches patches) {
    this.properties = Map.copyOf(properties);
    this.patches = patches;
  }

  /**
   * Builds the engine properties (unchecked: {@code RelayConfig} checks them).
   *
   * @param source {@code debezium.source.*}, prefix stripped
   * @param transforms transform names in order
   * @param transformSettings {@code debezium.transforms.*}, prefix stripped
   * @param predicates predicate names
   * @param predicateSettings {@code debezium.predicates.*}, prefix stripped
   * @param bootstrapServers Kafka brokers, for the offset store
   * @param publicationEventsTopic topic for {@code writer.outbox} events
   * @param deliveryEventsTopic topic for {@code consumer.outbox} events
   * @param patches Herald's Debezium patches or the stock behaviour ({@link DebeziumPatches})
   */
  public static EngineProperties from(
      Map<String, String> source,
      List<String> transforms,
      Map<String, String> transformSettings,
      List<String> predicates,
      Map<String, String> predicateSettings,
      String bootstrapServers,
      String publicationEventsTopic,
      String deliveryEventsTopic,
      DebeziumPatches patches) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("name", ENGINE_NAME);
    p.put("connector.class", DebeziumPatches.STOCK_CONNECTOR);
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
    p.put("column.exclude.list", OUTBOX_COLUMNS_NOT_ROUTED);
    p.put("tombstones.on.delete", "false");
    p.put("extended.headers.enabled", "false");
    p.put("offset.storage", KAFKA_OFFSET_STORE);
    p.put("offset.storage.topic", "herald.relay.offsets");
    p.put("offset.storage.partitions", "1");
    p.put("offset.storage.replication.factor", "-1");
    p.put("offset.flush.interval.ms", "250");
    p.put("offset.flush.timeout.ms", "10000");
    // Used only by the offset store's producer (Kafka's KafkaOffsetBackingStore builds its clients
    // from the engine's settings); no other client of the engine has a linger.
    p.put("linger.ms", "0");
    p.put("poll.interval.ms", "10");
    p.put("max.queue.size", "2048");
    p.put("max.batch.size", "512");
    p.put("heartbeat.interval.ms", "10000");
    // Debezium 3.6's latency statistics feed a bounded queue; under a backlog it overflows and logs
    // a WARN per event (10,000 lines in one drain). The relay exports its own meters instead.
    p.put("statistics.metrics.enabled", "false");
    p.putAll(patches.engineDefaults());
    p.putAll(source);
    if (isBlank(p.get("column.exclude.list"))
        || (source.containsKey("column.include.list")
            && !source.containsKey("column.exclude.list"))) {
      // Blank turns the exclusion off; Debezium refuses both lists at once, so an include list
      // given here replaces the default.
      p.remove("column.exclude.list");
    }
    p.putIfAbsent("heartbeat.action.query", String.format(HEARTBEAT_QUERY, p.get("slot.name")));
    List<String> allTransforms = new ArrayList<>(List.of(WRITER_ROUTER, CONSUMER_ROUTER));
    allTransforms.addAll(transforms);
    List<String> allPredicates = new ArrayList<>(List.of(WRITER_ROUTER, CONSUMER_ROUTER));
    allPredicates.addAll(predicates);
    String prefix = p.get("topic.prefix");
    router(p, WRITER_ROUTER, prefix + ".writer.outbox", publicationEventsTopic, patches);
    router(p, CONSUMER_ROUTER, prefix + ".consumer.outbox", deliveryEventsTopic, patches);
    p.put("transforms", String.join(",", allTransforms));
    transformSettings.forEach((key, value) -> p.put("transforms." + key, value));
    p.put("predicates", String.join(",", allPredicates));
    predicateSettings.forEach((key, value) -> p.put("predicates." + key, value));
    p.put("bootstrap.servers", bootstrapServers);
    p.put("connector.class", patches.connectorClass());
    return new EngineProperties(p, patches);
  }

  private static void router(
      Map<String, String> p,
      String name,
      String tableTopic,
      String topic,
      DebeziumPatches patches) {
    String t = "transforms." + name + ".";
    p.put(t + "type", patches.routerType());
    p.put(t + "predicate", name);
    p.put(t + "table.field.event.id", "id");
    p.put(t + "table.field.event.key", "aggregate_id");
    p.put(t + "table.field.event.payload", "payload");
    p.put(t + "table.fields.additional.placement", HEADERS);
    p.put(t + "route.by.field", "aggregate_type");
    // No ${routedByValue} in the replacement: every event of this table goes to one topic.
    p.put(t + "route.topic.replacement", topic);
    p.put(t + "route.tombstone.on.empty.payload", "false");
    p.put(t + "table.expand.json.payload", "false");
    patches
        .topicPredicate(tableTopic)
        .forEach((key, value) -> p.put("predicates." + name + "." + key, value));
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }

  /**
   * These properties with Debezium's driver connections waiting on a quiet replication stream's
   * socket instead of peeking for 1 ms ({@link DebeziumPatches#streamIdleWait}). With the patches
   * off or a zero wait, these properties unchanged.
   */
  public EngineProperties withStreamIdleWait(StreamIdleWait idleWait) {
    Map<String, String> socket = patches.streamIdleWait(idleWait);
    if (socket.isEmpty()) {
      return this;
    }
    Map<String, String> p = new LinkedHashMap<>(properties);
    p.putAll(socket);
    return new EngineProperties(p, patches);
  }

  /** These properties with the engine hand-off's linger ({@link DebeziumPatches#handoffLinger}). */
  public EngineProperties withHandoffLinger(Duration linger) {
    Map<String, String> p = new LinkedHashMap<>(properties);
    p.putAll(patches.handoffLinger(linger));
    return new EngineProperties(p, patches);
  }

  /**
   * These properties with the sink's Kafka client settings ({@link
   * ProducerSettings#clientSettings}: security, TLS, SASL) on top, where Debezium's Kafka offset
   * store reads them: it builds its producer, consumer and admin clients from the engine's own
   * settings, so without them a secured cluster would take the sink's events and refuse the offsets
   * (the engine fails at start). They are set once, in {@code debezium.sink.kafka.producer.*}
   * ({@code RelayConfig} refuses a second copy under {@code debezium.source.*}).
   */
  public EngineProperties withKafkaClient(Map<String, ?> clientSettings) {
    Map<String, String> p = new LinkedHashMap<>(properties);
    clientSettings.forEach(
        (key, value) -> {
          // bootstrap.servers comes from relay.kafka.bootstrap-servers and is already set.
          if (!key.equals("bootstrap.servers")) {
            p.put(key, String.valueOf(value));
          }
        });
    return new EngineProperties(p, patches);
  }

  /** The patches this engine runs, or stock Debezium. */
  public DebeziumPatches patches() {
    return patches;
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

  /**
   * The engine's largest batch ({@code max.batch.size}): a batch this large means more was queued.
   * -1 when it is not a positive whole number ({@code RelayConfig} refuses that).
   */
  public int maxBatchSize() {
    return positiveInt(properties.get("max.batch.size"));
  }

  /**
   * Debezium's heartbeat interval ({@code heartbeat.interval.ms}); empty when heartbeats are off,
   * or when it is not a whole number ({@code RelayConfig} refuses that).
   */
  public Optional<Duration> heartbeatInterval() {
    try {
      long millis = Long.parseLong(properties.getOrDefault("heartbeat.interval.ms", "0").strip());
      return millis > 0 ? Optional.of(Duration.ofMillis(millis)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The value as a positive int, or -1 when it is not one. */
  public static int positiveInt(String value) {
    try {
      int parsed = Integer.parseInt(value == null ? "" : value.strip());
      return parsed > 0 ? parsed : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The engine's name ({@code name}, {@code herald-relay} unless {@code debezium.source.name} says
   * otherwise): Debezium keys its offsets by it, so the slot check reads them under it.
   */
  public String engineName() {
    return properties.get("name");
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

  /**
   * The connector's TLS settings the relay's own connections (slot checks, leader lock) use too, as
   * the PostgreSQL driver names them: Debezium's {@code database.sslmode} is the driver's {@code
   * sslmode}, and so on. {@code database.sslpassword} goes to the driver apart from the URL, which
   * is logged ({@link #database}).
   */
  private static final List<String> TLS_SETTINGS =
      List.of("sslmode", "sslrootcert", "sslcert", "sslkey", "sslfactory");

  /**
   * JDBC URL of the captured database, from the connector's connection settings, including its TLS
   * settings ({@link #TLS_SETTINGS}).
   */
  public String jdbcUrl() {
    StringBuilder url =
        new StringBuilder("jdbc:postgresql://")
            .append(properties.get("database.hostname"))
            .append(':')
            .append(properties.getOrDefault("database.port", "5432"))
            .append('/')
            .append(URLEncoder.encode(properties.get("database.dbname"), StandardCharsets.UTF_8));
    char separator = '?';
    for (String setting : TLS_SETTINGS) {
      String value = properties.get("database." + setting);
      if (!isBlank(value)) {
        url.append(separator)
            .append(setting)
            .append('=')
            .append(URLEncoder.encode(value.strip(), StandardCharsets.UTF_8));
        separator = '&';
      }
    }
    return url.toString();
  }

  /**
   * The captured database for the relay's own connections: the connector's host, database,
   * credentials and TLS settings ({@link #jdbcUrl()}), with the passphrase of an encrypted client
   * key ({@code database.sslpassword}) as a secret driver property.
   */
  public DatabaseConfig database(int poolSize, Duration connectTimeout) {
    String keyPassphrase = properties.get("database.sslpassword");
    return new DatabaseConfig(
        jdbcUrl(),
        databaseUser(),
        databasePassword(),
        poolSize,
        connectTimeout,
        isBlank(keyPassphrase) ? Map.of() : Map.of("sslpassword", keyPassphrase));
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
