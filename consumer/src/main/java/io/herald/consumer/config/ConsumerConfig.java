package io.herald.consumer.config;

import io.herald.common.event.Topics;
import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigGroup;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigSource;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Durations;
import io.herald.config.ProcessConfig;
import io.herald.config.Validator;
import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.DestinationProfile;
import io.herald.consumer.dispatch.DispatchSettings;
import io.herald.consumer.reconcile.ReconcileSettings;
import io.herald.consumer.retention.RetentionSettings;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.DatabaseKeys;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.runtime.ops.OpsEndpoint;
import io.herald.runtime.ops.OpsKeys;
import io.herald.schema.CaptureSettings;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The consumer's configuration, parsed once from {@code connect-config/consumer.properties} plus
 * {@code HERALD_*} environment overrides (mapping: {@link ConfigSource}). {@code kafka.consumer.*}
 * and {@code kafka.producer.*} pass through to the Kafka clients; a setting Herald owns there is
 * refused, naming it. Immutable and thread-safe.
 *
 * <p>Each key is defined once below and read once, in the constructor, into the record of the
 * component that uses it ({@link #dispatch()} for the dispatcher, {@link #destinations()} for the
 * destination clients, ...); record fields are named after their keys, and the records check only
 * for nulls: every range and contradiction is checked here, once. To add a key: define one constant
 * (before {@code DEF}), read it into its component's record, document it in the shipped property
 * file (a test checks it), and name it in any message about it (a test checks every key a message
 * names).
 *
 * <pre>{@code
 * ConsumerConfig config = ConsumerConfig.load(Path.of("connect-config/consumer.properties"), System.getenv());
 * log.info("{}", config.effective());
 * }</pre>
 */
public final class ConsumerConfig extends ProcessConfig {

  /** What happens to a consumer outbox row once committed (see the writer's equivalent). */
  public enum OutboxRetention {
    /** Deleted in the inserting transaction; the WAL carries the event. */
    DELETE_IMMEDIATELY,
    /** Kept keep-days, then purged in batches. */
    KEEP
  }

  /**
   * Where records the consumer cannot use go.
   *
   * @param topic {@code consumer.topics.dlq}
   * @param producerOverrides {@code kafka.producer.*}, prefix stripped; never a setting Herald owns
   *     (the configuration refuses those). Holds secrets: never shown
   */
  public record DeadLetters(String topic, Map<String, String> producerOverrides) {
    public DeadLetters {
      Objects.requireNonNull(topic, "topic");
      producerOverrides = Map.copyOf(producerOverrides);
    }

    @Override
    public String toString() {
      return "DeadLetters[" + topic + "]";
    }
  }

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("consumer");

  private static final OpsKeys OPS =
      OpsKeys.define(
          KEYS, "consumer.ops", 8083, "Port of /health and /metrics (0 = any free port).");

  private static final DatabaseKeys DB = DatabaseKeys.define(KEYS, "consumer.db");

  public static final ConfigKey<Boolean> DB_MIGRATE_ON_START =
      KEYS.define(
          ConfigKey.optional(
              "consumer.db.migrate-on-start",
              ConfigType.BOOLEAN,
              true,
              "Apply the consumer schema migrations (Flyway) at start."));
  public static final ConfigKey<String> CAPTURE_PUBLICATION =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.capture.publication",
                  ConfigType.STRING,
                  "herald_outbox",
                  "PostgreSQL publication the migrations add consumer.outbox to.")
              .validatedBy(
                  Validator.matches(
                      "[a-z_][a-z0-9_]{0,62}", "must be a lowercase PostgreSQL identifier")));
  public static final ConfigKey<String> CAPTURE_SLOT =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.capture.slot",
                  ConfigType.STRING,
                  "herald_relay",
                  "Logical replication slot (pgoutput) the migrations create for the relay.")
              .validatedBy(
                  Validator.matches(
                      "[a-z0-9_]{1,63}",
                      "must be a replication slot name: lowercase letters, digits, _")));
  public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS =
      KEYS.define(
          ConfigKey.required(
              "consumer.kafka.bootstrap-servers",
              ConfigType.STRING,
              "Kafka bootstrap servers, host:port[,host:port]."));
  public static final ConfigKey<String> KAFKA_GROUP_ID =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.kafka.group-id",
                  ConfigType.STRING,
                  "herald-consumer",
                  "Kafka consumer group; every consumer instance of one deployment uses the same.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<String> TOPIC_PUBLICATION_EVENTS =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.topics.publication-events",
                  ConfigType.STRING,
                  Topics.PUBLICATION_EVENTS,
                  "Topic of PublicationRequested events.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<String> TOPIC_DLQ =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.topics.dlq",
                  ConfigType.STRING,
                  Topics.PUBLICATION_DLQ,
                  "Topic for records that cannot be parsed or validated.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<Integer> DISPATCH_POOL_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.pool-size",
                  ConfigType.INT,
                  8,
                  "Threads calling destinations (upper bound over all destinations).")
              .validatedBy(Validator.between(1, 1000)));
  public static final ConfigKey<Duration> DISPATCH_LEASE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.lease",
                  ConfigType.DURATION,
                  Duration.ofMinutes(2),
                  "The longest a claim on a delivery lasts, renewals included; must outlast one destination call.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> DISPATCH_HEARTBEAT_TIMEOUT =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.heartbeat-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(15),
                  "How long a claim is leased at a time (at most the lease); renewed every third of it while its call is in flight, so a dead instance's claims expire this long after its last renewal.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Integer> DISPATCH_MAX_ATTEMPTS =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.max-attempts",
                  ConfigType.INT,
                  10,
                  "Attempts after which a retriable failure becomes FAILED.")
              .validatedBy(Validator.between(1, 1000)));
  public static final ConfigKey<Duration> DISPATCH_BACKOFF_BASE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.backoff-base",
                  ConfigType.DURATION,
                  Duration.ofSeconds(1),
                  "Wait before the second attempt; doubles per attempt.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> DISPATCH_BACKOFF_MAX =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.backoff-max",
                  ConfigType.DURATION,
                  Duration.ofMinutes(5),
                  "Longest wait between attempts.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> DISPATCH_POLL_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.poll-interval",
                  ConfigType.DURATION,
                  Duration.ofMillis(500),
                  "How soon a destination whose last claim found less than it asked for looks for due"
                      + " deliveries again unless woken (new deliveries, one of its calls ending).")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> RECONCILE_GRACE_PERIOD =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.reconcile.grace-period",
                  ConfigType.DURATION,
                  Duration.ofMinutes(1),
                  "How long an UNCERTAIN delivery waits before the destination is asked whether the article exists.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> RECONCILE_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.reconcile.interval",
                  ConfigType.DURATION,
                  Duration.ofSeconds(5),
                  "Pause between reconciliation runs.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> INBOX_LINGER =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.inbox.linger",
                  ConfigType.DURATION,
                  Duration.ofMillis(10),
                  "After a poll that found publication events, how long the intake polls on to take what arrives meanwhile into the same inbox transaction (it stops at max.poll.records; its last poll may take the batch up to twice that). Trades up to this much latency per event for fewer transactions and bigger claims (docs/benchmarks-history.md, session 19). 0ms takes each poll alone. At most 1s.")
              .validatedBy(Validator.within(Duration.ZERO, Duration.ofSeconds(1))));
  public static final ConfigKey<Duration> INBOX_RETENTION =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.inbox.retention",
                  ConfigType.DURATION,
                  Duration.ofDays(14),
                  "How long processed message ids are kept for deduplication.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> INBOX_REDELIVERY_WINDOW =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.inbox.redelivery-window",
                  ConfigType.DURATION,
                  Duration.ofDays(7),
                  "Longest time after which Kafka may deliver a record again (topic retention, offset resets); the inbox must remember at least this long.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<OutboxRetention> OUTBOX_RETENTION =
      KEYS.define(
          ConfigKey.optional(
              "consumer.outbox.retention",
              ConfigType.enumType(OutboxRetention.class),
              OutboxRetention.KEEP,
              "delete-immediately: delete the status-event row in its transaction; keep: keep it keep-days, then purge."));
  public static final ConfigKey<Integer> OUTBOX_KEEP_DAYS =
      KEYS.define(
          ConfigKey.optional(
              "consumer.outbox.keep-days",
              ConfigType.INT,
              7,
              "Days a consumer outbox row is kept when retention is keep."));
  public static final ConfigKey<Integer> OUTBOX_PURGE_BATCH_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.outbox.purge-batch-size",
                  ConfigType.INT,
                  1000,
                  "Rows deleted per purge statement (inbox and outbox).")
              .validatedBy(Validator.between(1, 100_000)));

  public static final ConfigKey<String> DISPATCH_OWNER =
      KEYS.define(
          ConfigKey.optional(
              "consumer.dispatch.owner",
              ConfigType.STRING,
              null,
              "Name this instance's claims carry (claim_owner column, logs); default host:pid."));
  public static final ConfigKey<Duration> DISPATCH_SHUTDOWN_GRACE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.shutdown-grace",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "On stop, how long in-flight destination calls may finish and be recorded; claims of calls still running then expire and are reconciled as uncertain.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Integer> DISPATCH_RECORD_BATCH_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.dispatch.record-batch-size",
                  ConfigType.INT,
                  DispatchSettings.DEFAULT_RECORD_BATCH_SIZE,
                  "Most destination call results recorded in one transaction (the calls that ended while the previous results were being recorded, each still fenced by its own claim); 1 records each result in a transaction of its own.")
              .validatedBy(Validator.between(1, 10_000)));
  public static final ConfigKey<Integer> RECONCILE_BATCH_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.reconcile.batch-size",
                  ConfigType.INT,
                  100,
                  "Deliveries settled per destination and statement by the reconciler.")
              .validatedBy(Validator.between(1, 10_000)));
  public static final ConfigKey<Duration> RECONCILE_LOOKUP_RETRY =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.reconcile.lookup-retry",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "Pause before a lookup that got no answer (destination down) is tried again.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> DELIVERY_RETENTION =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.delivery.retention",
                  ConfigType.DURATION,
                  Duration.ofDays(30),
                  "How long PUBLISHED, FAILED and ABANDONED deliveries are kept before they are purged.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> PURGE_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.purge.interval",
                  ConfigType.DURATION,
                  Duration.ofMinutes(10),
                  "Pause between retention purges of inbox, finished deliveries and outbox.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<String> OPS_OPERATOR_TOKEN =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.ops.operator-token",
                  ConfigType.STRING,
                  null,
                  "Bearer token of the operator API (/v1/deliveries) on the ops port; unset disables the API.")
              .secret());

  /** {@code consumer.destinations.<name>.*}: one instance per destination API. */
  public static final ConfigGroup DESTINATIONS =
      KEYS.group(
          "consumer.destinations",
          "One entry per destination API; the name is the destination in publication requests.");

  public static final ConfigKey<String> DESTINATION_BASE_URL =
      DESTINATIONS.define(
          ConfigKey.required(
                  "base-url", ConfigType.STRING, "Base URL of the destination's publishing API.")
              .validatedBy(Validator.httpUrl()));
  private static final Validator<String> HEADER_OR_NONE =
      Validator.matches("none|[A-Za-z0-9!#$%&'*+.^_`|~-]+", "must be an HTTP header name, or none");
  private static final Validator<String> JSON_POINTER =
      Validator.matches("(/[^/]*)+", "must be a JSON pointer such as /id or /data/0/id");

  public static final ConfigKey<DestinationProfile.Preset> DESTINATION_PROFILE =
      DESTINATIONS.define(
          ConfigKey.optional(
              "profile",
              ConfigType.enumType(DestinationProfile.Preset.class),
              DestinationProfile.Preset.NONE,
              "The destination's convention; the profile keys below refine it (unset: the preset's value)."));
  public static final ConfigKey<String> DESTINATION_IDEMPOTENCY_HEADER =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "idempotency-header",
                  ConfigType.STRING,
                  null,
                  "(Default: the profile's.) Request header carrying the idempotency key, or none: the destination deduplicates by it within dedup-window.")
              .validatedBy(HEADER_OR_NONE));
  public static final ConfigKey<Duration> DESTINATION_DEDUP_WINDOW =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "dedup-window",
                  ConfigType.DURATION,
                  null,
                  "(Default: the profile's.) How long the destination remembers a key; no resend with the key once the first attempt is older (less one call).")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Boolean> DESTINATION_ERRORS_REPLAYED =
      DESTINATIONS.define(
          ConfigKey.optional(
              "errors-replayed",
              ConfigType.BOOLEAN,
              null,
              "(Default: the profile's.) A repeated key gets the saved error of its first request (marked by replay-marker-header): such an error goes to an operator."));
  public static final ConfigKey<String> DESTINATION_REPLAY_MARKER_HEADER =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "replay-marker-header",
                  ConfigType.STRING,
                  null,
                  "(Default: the profile's.) Response header marking an answer replayed for a repeated key, or none.")
              .validatedBy(HEADER_OR_NONE));
  public static final ConfigKey<DestinationProfile.Conflict> DESTINATION_CONFLICT =
      DESTINATIONS.define(
          ConfigKey.optional(
              "conflict",
              ConfigType.enumType(DestinationProfile.Conflict.class),
              null,
              "(Default: the profile's.) What HTTP 409 means: in-flight (same key still processing: retry later) or exists (PUBLISHED with the id in the answer)."));
  public static final ConfigKey<String> DESTINATION_CONFLICT_ID_HEADER =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "conflict-id-header",
                  ConfigType.STRING,
                  "none",
                  "Header of a 409 exists answer holding the remote id, or none: read it from the body at remote-id-field.")
              .validatedBy(HEADER_OR_NONE));
  public static final ConfigKey<String> DESTINATION_REMOTE_ID_FIELD =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "remote-id-field",
                  ConfigType.STRING,
                  "/id",
                  "JSON pointer to the remote id in a publish answer (2xx, 409 exists).")
              .validatedBy(JSON_POINTER));
  public static final ConfigKey<String> DESTINATION_LOOKUP_PATH =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "lookup-path",
                  ConfigType.STRING,
                  null,
                  "(Default: the profile's.) Lookup path and query under base-url, {ref} for the external reference (200: found, 404: not found), or none.")
              .validatedBy(
                  Validator.matches(
                      "none|/.*\\{ref\\}.*",
                      "must be a path starting with / holding {ref}, or none")));
  public static final ConfigKey<String> DESTINATION_LOOKUP_ID_FIELD =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "lookup-id-field",
                  ConfigType.STRING,
                  "/id",
                  "JSON pointer to the remote id in a lookup answer.")
              .validatedBy(JSON_POINTER));
  public static final ConfigKey<Boolean> DESTINATION_HONOUR_RETRY_AFTER =
      DESTINATIONS.define(
          ConfigKey.optional(
              "honour-retry-after",
              ConfigType.BOOLEAN,
              true,
              "Wait a 429's or 503's Retry-After (up to consumer.dispatch.backoff-max) before trying again."));
  public static final ConfigKey<Integer> DESTINATION_RATE_LIMIT =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "rate-limit",
                  ConfigType.INT,
                  0,
                  "Requests per second to this destination from one instance, publishes and lookups (0: unlimited).")
              .validatedBy(Validator.between(0, 100_000)));
  public static final ConfigKey<Duration> DESTINATION_CONNECT_TIMEOUT =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "connect-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(5),
                  "TCP/TLS connect timeout (nothing sent yet: a timeout here is a definite failure).")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> DESTINATION_READ_TIMEOUT =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "read-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "Wait for the response after sending (a timeout here makes the delivery UNCERTAIN).")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Integer> DESTINATION_CONCURRENCY =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "concurrency", ConfigType.INT, 4, "Calls in flight to this destination at once.")
              .validatedBy(Validator.between(1, 1000)));
  public static final ConfigKey<String> DESTINATION_AUTH_TOKEN =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "auth-token",
                  ConfigType.STRING,
                  null,
                  "Bearer token sent to the destination; empty for none.")
              .secret());

  public static final ConfigKey<Integer> DESTINATION_BREAKER_FAILURES =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "breaker.failures",
                  ConfigType.INT,
                  BreakerSettings.DEFAULT.failures(),
                  "Consecutive 5xx, timeouts or connect failures that open the destination's breaker (its deliveries wait, other destinations flow); 0 disables it.")
              .validatedBy(Validator.between(0, 10_000)));
  public static final ConfigKey<Duration> DESTINATION_BREAKER_OPEN_FOR =
      DESTINATIONS.define(
          ConfigKey.optional(
                  "breaker.open-for",
                  ConfigType.DURATION,
                  BreakerSettings.DEFAULT.openFor(),
                  "How long an open breaker holds the destination's deliveries before one probe goes through (state per instance, in memory).")
              .validatedBy(Validator.positive()));

  /** {@code KafkaConsumer} settings, prefix stripped. */
  public static final String KAFKA_CONSUMER =
      KEYS.passThrough("kafka.consumer.", "KafkaConsumer settings (security, fetch sizes, ...).");

  /** {@code KafkaProducer} settings (dead-letter topic), prefix stripped. */
  public static final String KAFKA_PRODUCER =
      KEYS.passThrough(
          "kafka.producer.", "KafkaProducer settings for the dead-letter topic (security, ...).");

  private static final ConfigDef DEF = KEYS.build(); // keep last: defining after build fails

  /** Dead-letter producer settings the guarantees rest on (besides bootstrap.servers). */
  private static final List<String> DEAD_LETTER_OWNED =
      List.of("acks", "enable.idempotence", "key.serializer", "value.serializer");

  /** How long the listener's poll waits for records; not a setting (it bounds the close delay). */
  private static final Duration LISTENER_POLL_TIMEOUT = Duration.ofMillis(500);

  /** Pause after a failed intake batch before it is read again; not a setting. */
  private static final Duration LISTENER_FAILURE_BACKOFF = Duration.ofSeconds(2);

  /** A background loop (listener, dispatcher, reconciler) silent this long is down on /health. */
  public static final Duration LOOP_MAX_SILENCE = Duration.ofMinutes(2);

  private final OpsEndpoint ops;
  private final Optional<String> operatorToken;
  private final DatabaseConfig database;
  private final boolean migrateOnStart;
  private final Optional<DatabaseConfig> migration;
  private final CaptureSettings capture;
  private final InboxSettings inbox;
  private final DeadLetters deadLetters;
  private final DispatchSettings dispatch;
  private final ReconcileSettings reconcile;
  private final RetentionSettings retention;
  private final Map<String, DestinationConfig> destinations;

  private ConsumerConfig(ConfigValues values) {
    super(values);
    this.destinations = readDestinations(values);
    validate(values, destinations);
    this.ops = OPS.read(values);
    this.operatorToken = values.find(OPS_OPERATOR_TOKEN);
    this.database = DB.read(values);
    this.migrateOnStart = values.get(DB_MIGRATE_ON_START);
    this.migration = DB.readMigration(values, database);
    this.capture = new CaptureSettings(values.get(CAPTURE_PUBLICATION), values.get(CAPTURE_SLOT));
    this.inbox = readInbox(values);
    this.deadLetters = new DeadLetters(values.get(TOPIC_DLQ), values.passThrough(KAFKA_PRODUCER));
    this.dispatch = readDispatch(values);
    this.reconcile =
        new ReconcileSettings(
            values.get(RECONCILE_GRACE_PERIOD),
            values.get(RECONCILE_INTERVAL),
            values.get(RECONCILE_BATCH_SIZE),
            values.get(RECONCILE_LOOKUP_RETRY));
    this.retention = readRetention(values);
  }

  private static Map<String, DestinationConfig> readDestinations(ConfigValues values) {
    Map<String, DestinationConfig> destinations = new LinkedHashMap<>();
    values
        .group(DESTINATIONS)
        .forEach(
            (name, v) ->
                destinations.put(
                    name,
                    new DestinationConfig(
                        name,
                        URI.create(v.get(DESTINATION_BASE_URL)),
                        readProfile(v),
                        v.get(DESTINATION_CONNECT_TIMEOUT),
                        v.get(DESTINATION_READ_TIMEOUT),
                        v.get(DESTINATION_CONCURRENCY),
                        v.find(DESTINATION_AUTH_TOKEN),
                        new BreakerSettings(
                            v.get(DESTINATION_BREAKER_FAILURES),
                            v.get(DESTINATION_BREAKER_OPEN_FOR)))));
    return Collections.unmodifiableMap(destinations);
  }

  /** The preset of {@code profile}, each profile key that is set replacing the preset's value. */
  private static DestinationProfile readProfile(ConfigValues v) {
    DestinationProfile.Preset preset = v.get(DESTINATION_PROFILE);
    return new DestinationProfile(
        preset,
        v.find(DESTINATION_IDEMPOTENCY_HEADER)
            .map(ConsumerConfig::noneIsEmpty)
            .orElse(preset.idempotencyHeader()),
        v.find(DESTINATION_DEDUP_WINDOW).orElse(preset.dedupWindow()),
        v.find(DESTINATION_ERRORS_REPLAYED).orElse(preset.errorsReplayed()),
        v.find(DESTINATION_REPLAY_MARKER_HEADER)
            .map(ConsumerConfig::noneIsEmpty)
            .orElse(preset.replayMarkerHeader()),
        v.find(DESTINATION_CONFLICT).orElse(preset.conflict()),
        noneIsEmpty(v.get(DESTINATION_CONFLICT_ID_HEADER)),
        v.get(DESTINATION_REMOTE_ID_FIELD),
        v.find(DESTINATION_LOOKUP_PATH)
            .map(ConsumerConfig::noneIsEmpty)
            .orElse(preset.lookupPath()),
        v.get(DESTINATION_LOOKUP_ID_FIELD),
        v.get(DESTINATION_HONOUR_RETRY_AFTER),
        v.get(DESTINATION_RATE_LIMIT));
  }

  /** {@code none} (an empty value means "the preset's") says the destination has no such thing. */
  private static Optional<String> noneIsEmpty(String value) {
    return value.equals("none") ? Optional.empty() : Optional.of(value);
  }

  private static InboxSettings readInbox(ConfigValues values) {
    String groupId = values.get(KAFKA_GROUP_ID);
    return new InboxSettings(
        "publication events",
        values.get(KAFKA_BOOTSTRAP_SERVERS),
        values.get(TOPIC_PUBLICATION_EVENTS),
        groupId,
        "herald-consumer-" + groupId,
        null,
        LISTENER_POLL_TIMEOUT,
        values.get(INBOX_LINGER),
        LISTENER_FAILURE_BACKOFF,
        LOOP_MAX_SILENCE,
        "herald.consumer.listener",
        values.passThrough(KAFKA_CONSUMER));
  }

  private static DispatchSettings readDispatch(ConfigValues values) {
    return new DispatchSettings(
        values.find(DISPATCH_OWNER).filter(o -> !o.isBlank()).orElseGet(ConsumerConfig::hostAndPid),
        values.get(DISPATCH_POOL_SIZE),
        values.get(DISPATCH_LEASE),
        values.get(DISPATCH_HEARTBEAT_TIMEOUT),
        values.get(DISPATCH_MAX_ATTEMPTS),
        values.get(DISPATCH_BACKOFF_BASE),
        values.get(DISPATCH_BACKOFF_MAX),
        values.get(DISPATCH_POLL_INTERVAL),
        values.get(DISPATCH_SHUTDOWN_GRACE),
        values.get(DISPATCH_RECORD_BATCH_SIZE));
  }

  /** The claim owner name of an instance without {@code consumer.dispatch.owner}. */
  private static String hostAndPid() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      // Only a name in claims and logs; the pid still tells instances on one host apart.
      host = "unknown-host";
    }
    return host + ":" + ProcessHandle.current().pid();
  }

  /** The outbox is purged after keep-days when kept; a deleted-at-once row has age 0. */
  private static RetentionSettings readRetention(ConfigValues values) {
    Duration outbox =
        values.get(OUTBOX_RETENTION) == OutboxRetention.DELETE_IMMEDIATELY
            ? Duration.ZERO
            : Duration.ofDays(values.get(OUTBOX_KEEP_DAYS));
    return new RetentionSettings(
        values.get(INBOX_RETENTION),
        values.get(DELIVERY_RETENTION),
        outbox,
        values.get(PURGE_INTERVAL),
        values.get(OUTBOX_PURGE_BATCH_SIZE));
  }

  /** Reads {@code file} with {@code env} overrides ({@code System.getenv()} in production). */
  public static ConsumerConfig load(Path file, Map<String, String> env) {
    return from(ConfigSource.load(file, env));
  }

  /**
   * Parses and validates {@code source}.
   *
   * @throws ConfigException naming every unknown key, missing key, bad value and contradiction
   */
  public static ConsumerConfig from(ConfigSource source) {
    return new ConsumerConfig(DEF.read(source));
  }

  /** Every consumer key, for documentation and tests. */
  public static ConfigDef definition() {
    return DEF;
  }

  /** The cross-field checks; each key's own rule was checked when it was read. */
  private static void validate(ConfigValues values, Map<String, DestinationConfig> destinations) {
    ConfigProblems problems = new ConfigProblems();
    Duration backoffBase = values.get(DISPATCH_BACKOFF_BASE);
    Duration backoffMax = values.get(DISPATCH_BACKOFF_MAX);
    if (backoffBase.compareTo(backoffMax) > 0) {
      problems.contradiction(
          DISPATCH_BACKOFF_BASE.name(),
          Durations.format(backoffBase),
          "is longer than",
          DISPATCH_BACKOFF_MAX.name(),
          Durations.format(backoffMax),
          null);
    }
    Duration lease = values.get(DISPATCH_LEASE);
    for (DestinationConfig d : destinations.values()) {
      if (lease.compareTo(d.maxCallDuration()) <= 0) {
        problems.contradiction(
            DISPATCH_LEASE.name(),
            Durations.format(lease),
            "is not longer than",
            DESTINATIONS.fullName(d.name(), DESTINATION_CONNECT_TIMEOUT),
            Durations.format(d.connectTimeout())
                + " + "
                + ConfigProblems.assignment(
                    DESTINATIONS.fullName(d.name(), DESTINATION_READ_TIMEOUT),
                    Durations.format(d.readTimeout())),
            "a claim could expire while its call is still in flight");
      }
    }
    for (DestinationConfig d : destinations.values()) {
      validateProfile(problems, d);
    }
    Duration inboxRetention = values.get(INBOX_RETENTION);
    Duration redeliveryWindow = values.get(INBOX_REDELIVERY_WINDOW);
    if (inboxRetention.compareTo(redeliveryWindow) < 0) {
      problems.contradiction(
          INBOX_RETENTION.name(),
          Durations.format(inboxRetention),
          "is shorter than",
          INBOX_REDELIVERY_WINDOW.name(),
          Durations.format(redeliveryWindow),
          "a redelivered record could be processed twice");
    }
    if (values.get(OUTBOX_RETENTION) == OutboxRetention.KEEP && values.get(OUTBOX_KEEP_DAYS) <= 0) {
      problems.contradiction(
          OUTBOX_KEEP_DAYS.name(),
          values.get(OUTBOX_KEEP_DAYS),
          "contradicts",
          OUTBOX_RETENTION.name(),
          "keep",
          "keeping rows needs at least 1 day (or use delete-immediately)");
    }
    if (destinations.isEmpty()) {
      problems.add(
          DESTINATIONS.fullName("<name>", DESTINATION_BASE_URL)
              + ": no destination configured; every delivery would fail");
    }
    String setOnce = "set it once, in ";
    String bootstrap =
        setOnce
            + ConfigProblems.assignment(
                KAFKA_BOOTSTRAP_SERVERS.name(), values.get(KAFKA_BOOTSTRAP_SERVERS));
    String committedAfterDb =
        "offsets are committed only after the database commit, and records are read as bytes";
    Map<String, String> consumer = values.passThrough(KAFKA_CONSUMER);
    problems
        .ownedByHerald(KAFKA_CONSUMER, consumer, "bootstrap.servers", bootstrap)
        .ownedByHerald(
            KAFKA_CONSUMER,
            consumer,
            "group.id",
            setOnce + ConfigProblems.assignment(KAFKA_GROUP_ID.name(), values.get(KAFKA_GROUP_ID)));
    for (String owned : InboxSettings.OWNED.stream().sorted().toList()) {
      if (!owned.equals("bootstrap.servers") && !owned.equals("group.id")) {
        problems.ownedByHerald(KAFKA_CONSUMER, consumer, owned, committedAfterDb);
      }
    }
    // The intake reads it too (its linger stops there), so it must parse before the client does.
    String maxPollRecords = consumer.get("max.poll.records");
    if (maxPollRecords != null && !InboxSettings.isRecordsPerPoll(maxPollRecords)) {
      problems.add(
          ConfigProblems.assignment(KAFKA_CONSUMER + "max.poll.records", maxPollRecords)
              + " is not a whole number of at least 1");
    }
    Map<String, String> producer = values.passThrough(KAFKA_PRODUCER);
    problems.ownedByHerald(KAFKA_PRODUCER, producer, "bootstrap.servers", bootstrap);
    for (String owned : DEAD_LETTER_OWNED) {
      problems.ownedByHerald(
          KAFKA_PRODUCER,
          producer,
          owned,
          "a dead letter is acknowledged by every in-sync replica, once, before the offsets pass it");
    }
    String events = values.get(TOPIC_PUBLICATION_EVENTS);
    if (events.equals(values.get(TOPIC_DLQ))) {
      problems.contradiction(
          TOPIC_DLQ.name(),
          values.get(TOPIC_DLQ),
          "equals",
          TOPIC_PUBLICATION_EVENTS.name(),
          events,
          "dead letters would be read again as events");
    }
    problems.throwIfAny();
  }

  /** A profile's keys that only make sense together, each problem naming both keys. */
  private static void validateProfile(ConfigProblems problems, DestinationConfig d) {
    DestinationProfile p = d.profile();
    String header = DESTINATIONS.fullName(d.name(), DESTINATION_IDEMPOTENCY_HEADER);
    String window = DESTINATIONS.fullName(d.name(), DESTINATION_DEDUP_WINDOW);
    if (p.idempotencyHeader().isPresent()) {
      if (p.dedupWindow().isZero()) {
        problems.add(
            ConfigProblems.assignment(header, p.idempotencyHeader().orElseThrow())
                + " needs "
                + window
                + ": how long the destination remembers a key decides when a resend is safe");
      } else if (p.dedupWindow().compareTo(d.maxCallDuration()) <= 0) {
        problems.contradiction(
            window,
            Durations.format(p.dedupWindow()),
            "is not longer than",
            DESTINATIONS.fullName(d.name(), DESTINATION_CONNECT_TIMEOUT),
            Durations.format(d.connectTimeout())
                + " + "
                + ConfigProblems.assignment(
                    DESTINATIONS.fullName(d.name(), DESTINATION_READ_TIMEOUT),
                    Durations.format(d.readTimeout())),
            "no resend with the key could land inside the window");
      }
    } else {
      String noKey = " needs " + header + " (the profile has no key): ";
      if (p.conflict() == DestinationProfile.Conflict.EXISTS) {
        problems.add(
            ConfigProblems.assignment(
                    DESTINATIONS.fullName(d.name(), DESTINATION_CONFLICT), "exists")
                + noKey
                + "a 409 can say the article exists only for a key the destination deduplicates by");
      }
      if (p.errorsReplayed()) {
        problems.add(
            ConfigProblems.assignment(
                    DESTINATIONS.fullName(d.name(), DESTINATION_ERRORS_REPLAYED), true)
                + noKey
                + "errors are replayed only for a repeated key");
      }
    }
    if (p.errorsReplayed() && p.replayMarkerHeader().isEmpty()) {
      problems.add(
          ConfigProblems.assignment(
                  DESTINATIONS.fullName(d.name(), DESTINATION_ERRORS_REPLAYED), true)
              + " needs "
              + DESTINATIONS.fullName(d.name(), DESTINATION_REPLAY_MARKER_HEADER)
              + ": without the marker a replayed error cannot be told from a new one");
    }
  }

  /** {@code consumer.ops.*}: where /health, /metrics and the operator API are served. */
  public OpsEndpoint ops() {
    return ops;
  }

  /**
   * {@code consumer.ops.operator-token}: the operator API's bearer token; empty when the API is
   * off. Secret: never log it.
   */
  public Optional<String> operatorToken() {
    return operatorToken;
  }

  /** {@code consumer.db.*}: the connection pool. */
  public DatabaseConfig database() {
    return database;
  }

  /** {@code consumer.db.migrate-on-start}: whether start-up applies the schema migrations. */
  public boolean migrateOnStart() {
    return migrateOnStart;
  }

  /**
   * {@code consumer.db.migration-user} and {@code -password} on the database of {@code
   * consumer.db.*}: the connection the migrations use; empty: the consumer's pool.
   */
  public Optional<DatabaseConfig> migration() {
    return migration;
  }

  /** {@code consumer.capture.*}: the publication and slot the migrations add the outbox to. */
  public CaptureSettings capture() {
    return capture;
  }

  /**
   * How the listener reads {@code consumer.topics.publication-events}: {@code consumer.kafka.*} and
   * {@code kafka.consumer.*}.
   */
  public InboxSettings inbox() {
    return inbox;
  }

  /** {@code consumer.topics.dlq} and {@code kafka.producer.*}: the dead-letter producer. */
  public DeadLetters deadLetters() {
    return deadLetters;
  }

  /** {@code consumer.dispatch.*}: how the dispatcher claims and retries. */
  public DispatchSettings dispatch() {
    return dispatch;
  }

  /** {@code consumer.reconcile.*}: how uncertain deliveries are settled. */
  public ReconcileSettings reconcile() {
    return reconcile;
  }

  /**
   * {@code consumer.inbox.retention}, {@code consumer.delivery.retention}, {@code
   * consumer.outbox.*} and {@code consumer.purge.interval}: what the retention purger deletes.
   */
  public RetentionSettings retention() {
    return retention;
  }

  /**
   * {@code consumer.destinations.<name>.*} by name (the {@code destination} field of publication
   * requests), in definition order.
   */
  public Map<String, DestinationConfig> destinations() {
    return destinations;
  }
}
