package io.herald.relay.engine;

import io.herald.relay.debezium.DebeziumPatches;
import io.herald.runtime.db.DatabaseConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

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
 *   <li>{@code offset.flush.interval.ms=250}: after a crash only the events published since the
 *       last commit (a quarter second's worth) are re-sent; a commit is one small write to the
 *       compacted offsets topic.
 *   <li>{@code poll.interval.ms=10}: how long Debezium's streaming thread sleeps whenever the
 *       replication stream has been dry for 5 reads. While events trickle in, that sleep is what an
 *       event waits before it is read; once the stream has been quiet for {@code
 *       relay.stream.idle-after}, the reads themselves wait on the socket ({@link
 *       DebeziumPatches#streamIdleWait}) and the interval no longer sets the idle cost: a trickle's
 *       p99 is several times lower at 10 than at 30, for the same idle cost (BENCHMARKS.md, "Relay:
 *       draining a backlog").
 *   <li>{@code max.queue.size=2048}, {@code max.batch.size=512}: the engine takes whatever is
 *       queued as soon as it is queued, so batches are as large as the backlog makes them; a
 *       shorter queue than Debezium's 8,192 keeps the heap's live set small (young collections copy
 *       it): it drained faster at 2,048 than at 8,192 and at 1,024 (BENCHMARKS.md, "Relay: draining
 *       a backlog").
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
  private static final List<String> ROUTED_COLUMNS =
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
   * Builds and checks the engine properties.
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
   * @throws IllegalArgumentException listing every contradiction, each naming its key
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
    check(p, source, transforms, predicates, patches);
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
    p.put(t + "type", "io.debezium.transforms.outbox.EventRouter");
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

  private static void check(
      Map<String, String> p,
      Map<String, String> source,
      List<String> transforms,
      List<String> predicates,
      DebeziumPatches patches) {
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
    String connector = p.get("connector.class").strip();
    if (!DebeziumPatches.POSTGRES_CONNECTORS.contains(connector)) {
      problems.add(
          "debezium.source.connector.class="
              + connector
              + " is not allowed: the relay runs "
              + DebeziumPatches.STOCK_CONNECTOR
              + " (as "
              + DebeziumPatches.ON.connectorClass()
              + " with relay.engine.debezium-patches=true)");
    }
    // The routers' predicates name the change topics Debezium's own strategy gives the outbox
    // tables; any other naming would leave every outbox event unrouted, on a topic nobody reads.
    String naming =
        p.getOrDefault("topic.naming.strategy", DebeziumPatches.STOCK_TOPIC_NAMING).strip();
    if (!DebeziumPatches.ROUTABLE_TOPIC_NAMINGS.contains(naming)) {
      problems.add(
          "debezium.source.topic.naming.strategy="
              + naming
              + " is not allowed: the outbox routers select events by the change topics of "
              + DebeziumPatches.STOCK_TOPIC_NAMING
              + " (cached with relay.engine.debezium-patches=true)");
    }
    String delimiter = p.get("topic.delimiter");
    if (delimiter != null && !delimiter.equals(".")) {
      problems.add(
          "debezium.source.topic.delimiter="
              + delimiter
              + " is not allowed: the outbox routers select events by change topics joined with"
              + " '.' ("
              + p.get("topic.prefix")
              + ".writer.outbox)");
    }
    if (positiveInt(p.get("max.batch.size")) < 0) {
      problems.add(
          "debezium.source.max.batch.size="
              + p.get("max.batch.size")
              + " is not a positive whole number (the sink pipelines batches of this size)");
    }
    String queueBytes = p.get("max.queue.size.in.bytes");
    if (!patches.keepsQueueByteBound() && !isBlank(queueBytes) && !queueBytes.strip().equals("0")) {
      problems.add(
          "debezium.source.max.queue.size.in.bytes="
              + queueBytes
              + " is not supported: the relay's queue poll does not keep Debezium's byte count;"
              + " bound the queue with debezium.source.max.queue.size (or run stock Debezium,"
              + " relay.engine.debezium-patches=false)");
    }
    for (String list : List.of("column.exclude.list", "column.include.list")) {
      String value = p.get(list);
      if (isBlank(value)) {
        continue;
      }
      List<Pattern> patterns = new ArrayList<>();
      for (String regex : value.split(",")) {
        if (!regex.isBlank()) {
          patterns.add(Pattern.compile(regex.strip(), Pattern.CASE_INSENSITIVE));
        }
      }
      for (String table : List.of("writer.outbox", "consumer.outbox")) {
        for (String column : ROUTED_COLUMNS) {
          String name = table + "." + column;
          boolean matched = patterns.stream().anyMatch(re -> re.matcher(name).matches());
          if (matched == list.equals("column.exclude.list")) {
            problems.add(
                "debezium.source."
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
    for (String key : List.of("database.hostname", "database.user", "database.dbname")) {
      if (isBlank(p.get(key))) {
        problems.add("debezium.source." + key + ": required key is missing");
      }
    }
    for (String name : List.of(WRITER_ROUTER, CONSUMER_ROUTER)) {
      if (transforms.contains(name) || predicates.contains(name)) {
        problems.add(
            "debezium.transforms / debezium.predicates: '"
                + name
                + "' is the relay's own outbox router");
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

  /**
   * These properties with Debezium's driver connections waiting on a quiet replication stream's
   * socket for up to {@code idleWait} per read instead of 1 ms ({@link
   * DebeziumPatches#streamIdleWait}). With the patches off or a zero {@code idleWait}, these
   * properties unchanged.
   */
  public EngineProperties withStreamIdleWait(Duration idleWait, Duration idleAfter) {
    Map<String, String> socket = patches.streamIdleWait(idleWait, idleAfter);
    if (socket.isEmpty()) {
      return this;
    }
    Map<String, String> p = new LinkedHashMap<>(properties);
    p.putAll(socket);
    return new EngineProperties(p, patches);
  }

  /**
   * These properties with the sink's Kafka client settings ({@link
   * ProducerSettings#clientSettings}: security, TLS, SASL) on top, where Debezium's Kafka offset
   * store reads them: it builds its producer, consumer and admin clients from the engine's own
   * settings, so without them a secured cluster would take the sink's events and refuse the offsets
   * (the engine fails at start). They are set once, in {@code debezium.sink.kafka.producer.*}.
   *
   * @throws IllegalArgumentException naming each key also set under {@code debezium.source.}
   */
  public EngineProperties withKafkaClient(Map<String, ?> clientSettings) {
    Map<String, String> p = new LinkedHashMap<>(properties);
    List<String> problems = new ArrayList<>();
    clientSettings.forEach(
        (key, value) -> {
          if (key.equals("bootstrap.servers")) {
            return; // from relay.kafka.bootstrap-servers, already set
          }
          if (properties.containsKey(key)) {
            problems.add(
                "debezium.source."
                    + key
                    + ": set Kafka client settings once, in debezium.sink.kafka.producer."
                    + key);
          }
          p.put(key, String.valueOf(value));
        });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new EngineProperties(p, patches);
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
   */
  public int maxBatchSize() {
    return positiveInt(properties.get("max.batch.size"));
  }

  /** The value as a positive int, or -1 when it is not one. */
  private static int positiveInt(String value) {
    try {
      int parsed = Integer.parseInt(value == null ? "" : value.strip());
      return parsed > 0 ? parsed : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
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
