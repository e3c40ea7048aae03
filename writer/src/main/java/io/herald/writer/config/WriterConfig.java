package io.herald.writer.config;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigGroup;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigSource;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.ProcessConfig;
import io.herald.config.Validator;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.DatabaseKeys;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.runtime.ops.OpsEndpoint;
import io.herald.runtime.ops.OpsKeys;
import io.herald.schema.CaptureSettings;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.http.ApiServer;
import io.herald.writer.http.PublicationApi;
import io.herald.writer.job.SingleReservations;
import io.herald.writer.outbox.OutboxRetention;
import io.herald.writer.retention.RetentionSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The writer's configuration, parsed once from {@code connect-config/writer.properties} plus {@code
 * HERALD_*} environment overrides (mapping: {@link ConfigSource}). Immutable and thread-safe.
 *
 * <p>Each key is defined once below and read once, in the constructor, into the record of the
 * component that uses it ({@link #http()} for the API server, {@link #status()} for the status
 * view, ...); record fields are named after their keys. To add a key: define one constant (before
 * {@code DEF}), read it into its component's record, document it in the shipped property file (a
 * test checks it), and name it in any message about it (a test checks every key a message names).
 *
 * <pre>{@code
 * WriterConfig config = WriterConfig.load(Path.of("connect-config/writer.properties"), System.getenv());
 * log.info("{}", config.effective());
 * }</pre>
 */
public final class WriterConfig extends ProcessConfig {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("writer");

  public static final ConfigKey<String> HTTP_HOST =
      KEYS.define(
          ConfigKey.optional(
              "writer.http.host",
              ConfigType.STRING,
              "0.0.0.0",
              "Interface the HTTP API binds to."));
  public static final ConfigKey<Integer> HTTP_PORT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.port",
                  ConfigType.INT,
                  8080,
                  "Port of the HTTP API (0 = any free port); /health and /metrics are on writer.ops.port.")
              .validatedBy(Validator.port()));
  public static final ConfigKey<Long> HTTP_REQUEST_MAX_BYTES =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.request-max-bytes",
                  ConfigType.BYTES,
                  1L << 20,
                  "Largest request body accepted; larger answers 413.")
              .validatedBy(Validator.between(1024L, 1L << 30)));
  public static final ConfigKey<Duration> HTTP_READ_TIMEOUT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.read-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(30),
                  "Idle time after which a connection that sends nothing is closed.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Integer> HTTP_MAX_CONCURRENT_REQUESTS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.max-concurrent-requests",
                  ConfigType.INT,
                  64,
                  "Requests served at once; more wait in a bounded queue, then get 503.")
              .validatedBy(Validator.between(1, 10_000)));
  public static final ConfigKey<Integer> HTTP_MAX_QUEUED_REQUESTS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.max-queued-requests",
                  ConfigType.INT,
                  256,
                  "Requests that may wait (without a thread) for one of the concurrent slots; beyond that 503."
                      + " With the concurrent requests it also sizes the queue of connections not yet"
                      + " accepted.")
              .validatedBy(Validator.between(0, 100_000)));
  public static final ConfigKey<Duration> HTTP_QUEUE_TIMEOUT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.queue-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(2),
                  "Longest a request waits for a concurrent slot before it gets 503.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> HTTP_RETRY_AFTER =
      KEYS.define(
          ConfigKey.optional(
                  "writer.http.retry-after",
                  ConfigType.DURATION,
                  Duration.ofSeconds(2),
                  "Retry-After sent with every 503 (database unavailable, overloaded); whole seconds.")
              .validatedBy(Validator.positive()));
  private static final OpsKeys OPS =
      OpsKeys.define(
          KEYS,
          "writer.ops",
          8081,
          "Port of /health and /metrics, apart from the API so they can stay internal (0 = any free port).");
  public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.kafka.bootstrap-servers",
                  ConfigType.STRING,
                  "localhost:9092",
                  "Kafka brokers (host:port,...) the status view reads delivery status events from,"
                      + " for GET /v1/publications/{id}; switched off by writer.status.enabled.")
              .validatedBy(Validator.notBlank()));
  public static final ConfigKey<String> STATUS_TOPIC =
      KEYS.define(
          ConfigKey.optional(
              "writer.status.topic",
              ConfigType.STRING,
              "herald.delivery.events",
              "Topic of the consumer's status events (written by the relay from consumer.outbox)."));
  public static final ConfigKey<String> STATUS_GROUP_ID =
      KEYS.define(
          ConfigKey.optional(
              "writer.status.group-id",
              ConfigType.STRING,
              "herald-writer-status",
              "Kafka consumer group of the writer's status view (all writer instances share it)."));
  public static final ConfigKey<Boolean> STATUS_ENABLED =
      KEYS.define(
          ConfigKey.optional(
              "writer.status.enabled",
              ConfigType.BOOLEAN,
              true,
              "Follow herald.delivery.events and show each job's delivery status and remote id."));
  public static final ConfigKey<Integer> STATUS_MAX_POLL_RECORDS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.max-poll-records",
                  ConfigType.INT,
                  500,
                  "Most events per poll, all applied in one transaction.")
              .validatedBy(Validator.between(1, 10_000)));
  public static final ConfigKey<Duration> STATUS_LINGER =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.linger",
                  ConfigType.DURATION,
                  Duration.ofMillis(50),
                  "After a poll that found status events, how long the view polls on to apply what arrives meanwhile in the same transaction (it stops at max-poll-records; its last poll may take the batch up to twice that). Trades up to this much delay of a job's status for fewer transactions (docs/benchmarks-history.md, session 19). 0ms applies each poll alone. At most 1s.")
              .validatedBy(Validator.within(Duration.ZERO, Duration.ofSeconds(1))));
  public static final ConfigKey<Duration> STATUS_FAILURE_BACKOFF =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.failure-backoff",
                  ConfigType.DURATION,
                  Duration.ofSeconds(5),
                  "Pause before a batch that failed (database or broker unavailable) is read again.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Duration> STATUS_MAX_SILENCE =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.max-silence",
                  ConfigType.DURATION,
                  Duration.ofSeconds(60),
                  "Without a poll or broker contact for this long, /health shows the status view DEGRADED.")
              .validatedBy(Validator.atLeast(Duration.ofSeconds(1))));
  public static final ConfigKey<Duration> STATUS_INBOX_RETENTION =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.inbox-retention",
                  ConfigType.DURATION,
                  Duration.ofDays(7),
                  "How long writer.inbox remembers an event id (redeliveries within it are dropped).")
              .validatedBy(Validator.atLeast(Duration.ofMinutes(1))));
  public static final ConfigKey<Duration> STATUS_INBOX_PURGE_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.inbox-purge-interval",
                  ConfigType.DURATION,
                  Duration.ofMinutes(10),
                  "Pause between purges of inbox rows older than inbox-retention.")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Integer> STATUS_INBOX_PURGE_BATCH_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "writer.status.inbox-purge-batch-size",
                  ConfigType.INT,
                  1000,
                  "Inbox rows deleted per purge statement; at most 100 statements per run.")
              .validatedBy(Validator.between(1, 100_000)));
  public static final String KAFKA_CONSUMER =
      KEYS.passThrough(
          "writer.kafka.consumer.",
          "KafkaConsumer settings of the status view (security, fetch sizes, ...); not the ones"
              + " Herald sets: bootstrap.servers, group.id, enable.auto.commit, max.poll.records,"
              + " deserializers.");
  public static final ConfigKey<Integer> BATCH_MAX_ITEMS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.batch.max-items",
                  ConfigType.INT,
                  100,
                  "Most items in one POST /v1/publications:batch (one transaction).")
              .validatedBy(Validator.between(1, 10_000)));

  public static final ConfigKey<Integer> GROUP_COMMIT_MAX_INTENTS =
      KEYS.define(
          ConfigKey.optional(
                  "writer.group-commit.max-intents",
                  ConfigType.INT,
                  32,
                  "Most single POSTs that arrive while others commit and are reserved together in"
                      + " one transaction (group commit); 1 commits each request alone.")
              .validatedBy(Validator.between(1, 10_000)));
  public static final ConfigKey<Integer> GROUP_COMMIT_MAX_IN_FLIGHT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.group-commit.max-in-flight",
                  ConfigType.INT,
                  2,
                  "Most group transactions of single POSTs at once, each on a pooled connection"
                      + " (below writer.db.pool-size); a request that finds them all busy joins the"
                      + " next group.")
              .validatedBy(Validator.between(1, 1_000)));
  public static final ConfigKey<List<String>> DESTINATIONS_ALLOWED =
      KEYS.define(
          ConfigKey.optional(
              "writer.destinations.allowed",
              ConfigType.LIST,
              List.of(),
              "Destinations a publication may name (comma-separated, e.g. the consumer's"
                  + " consumer.destinations.* names); any other is refused with 422"
                  + " unknown_destination. Empty: any destination is accepted."));

  private static final DatabaseKeys DB = DatabaseKeys.define(KEYS, "writer.db");

  public static final ConfigKey<Duration> DB_STARTUP_TIMEOUT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.db.startup-timeout",
                  ConfigType.DURATION,
                  Duration.ofSeconds(60),
                  "How long start-up waits for PostgreSQL before giving up (each attempt logged).")
              .validatedBy(Validator.positive()));
  public static final ConfigKey<Boolean> DB_MIGRATE_ON_START =
      KEYS.define(
          ConfigKey.optional(
              "writer.db.migrate-on-start",
              ConfigType.BOOLEAN,
              true,
              "Apply the writer schema migrations (Flyway) at start."));
  public static final ConfigKey<String> CAPTURE_PUBLICATION =
      KEYS.define(
          ConfigKey.optional(
                  "writer.capture.publication",
                  ConfigType.STRING,
                  "herald_outbox",
                  "PostgreSQL publication the migrations create for the relay.")
              .validatedBy(
                  Validator.matches(
                      "[a-z_][a-z0-9_]{0,62}", "must be a lowercase PostgreSQL identifier")));
  public static final ConfigKey<String> CAPTURE_SLOT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.capture.slot",
                  ConfigType.STRING,
                  "herald_relay",
                  "Logical replication slot (pgoutput) the migrations create for the relay.")
              .validatedBy(
                  Validator.matches(
                      "[a-z0-9_]{1,63}",
                      "must be a replication slot name: lowercase letters, digits, _")));
  public static final ConfigKey<OutboxRetention> OUTBOX_RETENTION =
      KEYS.define(
          ConfigKey.optional(
              "writer.outbox.retention",
              ConfigType.enumType(OutboxRetention.class),
              OutboxRetention.KEEP,
              "keep (default): keep the outbox row keep-days, then purge it, so that `herald relay"
                  + " recover` can republish it after a lost slot; delete-immediately: delete it in"
                  + " the inserting transaction (the WAL retained by the slot carries the event, and"
                  + " a lost slot cannot be recovered)."));
  public static final ConfigKey<Integer> OUTBOX_KEEP_DAYS =
      KEYS.define(
          ConfigKey.optional(
              "writer.outbox.keep-days",
              ConfigType.INT,
              1,
              "Days an outbox row is kept when retention is keep: how long after losing the slot"
                  + " `herald relay recover` can still republish it."));
  public static final ConfigKey<Integer> OUTBOX_PURGE_BATCH_SIZE =
      KEYS.define(
          ConfigKey.optional(
                  "writer.outbox.purge-batch-size",
                  ConfigType.INT,
                  1000,
                  "Rows deleted per purge statement (bounds lock time and WAL burst).")
              .validatedBy(Validator.between(1, 100_000)));
  public static final ConfigKey<Integer> OUTBOX_PURGE_MAX_BATCHES =
      KEYS.define(
          ConfigKey.optional(
                  "writer.outbox.purge-max-batches",
                  ConfigType.INT,
                  100,
                  "Most purge statements per run, so one run stays bounded.")
              .validatedBy(Validator.between(1, 100_000)));
  public static final ConfigKey<Duration> OUTBOX_PURGE_INTERVAL =
      KEYS.define(
          ConfigKey.optional(
                  "writer.outbox.purge-interval",
                  ConfigType.DURATION,
                  Duration.ofMinutes(1),
                  "Pause between purge runs when retention is keep.")
              .validatedBy(Validator.positive()));

  /**
   * {@code writer.tenants.<tenant>.*}: one instance per tenant; the instance name is the tenant id.
   */
  public static final ConfigGroup TENANTS =
      KEYS.group("writer.tenants", "One entry per tenant; the name is the tenant id.");

  public static final ConfigKey<String> TENANT_TOKEN_SHA256 =
      TENANTS.define(
          ConfigKey.required(
                  "token-sha256",
                  ConfigType.STRING,
                  "Lowercase hex SHA-256 of the tenant's bearer token (the token itself is never configured).")
              .validatedBy(Validator.sha256Hex())
              .secret());

  private static final ConfigDef DEF = KEYS.build(); // keep last: defining after build fails

  /**
   * The KafkaConsumer settings the status view sets itself, and why: a value for one of them under
   * {@link #KAFKA_CONSUMER} is refused (never silently overridden), with the Herald key to use.
   */
  private static final Map<String, String> STATUS_CONSUMER_OWNED =
      new TreeMap<>(
          Map.of(
              ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
              "use " + KAFKA_BOOTSTRAP_SERVERS.name(),
              ConsumerConfig.GROUP_ID_CONFIG,
              "use " + STATUS_GROUP_ID.name(),
              ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
              "use " + STATUS_MAX_POLL_RECORDS.name(),
              ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
              "offsets are committed only after the database commit",
              ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
              "the status view decodes the raw bytes itself",
              ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
              "the status view decodes the raw bytes itself"));

  /** How long the status view's poll blocks; not a setting (it only bounds the close delay). */
  private static final Duration STATUS_POLL_TIMEOUT = Duration.ofSeconds(1);

  /** The status view's Kafka client id, unless writer.kafka.consumer.client.id sets one. */
  private static final String STATUS_CLIENT_ID = "herald-writer-status";

  /** Prefix of the status view's gauges (herald_writer_status_degraded, ...). */
  private static final String STATUS_METRIC_PREFIX = "herald.writer.status";

  /** Inbox purge statements per run; not a setting (the batch size is). */
  private static final int STATUS_INBOX_PURGE_MAX_BATCHES = 100;

  /** How long the API server lets in-flight requests finish at close; not a setting. */
  private static final Duration HTTP_STOP_TIMEOUT = Duration.ofSeconds(10);

  /**
   * What the writer process itself reads at start.
   *
   * @param startupTimeout {@code writer.db.startup-timeout}
   * @param migrateOnStart {@code writer.db.migrate-on-start}
   * @param migration {@code writer.db.migration-user} and {@code -password} on the database of
   *     {@code writer.db.*}: the connection the migrations use; empty: the writer's pool
   */
  public record Startup(
      Duration startupTimeout, boolean migrateOnStart, Optional<DatabaseConfig> migration) {}

  private final DatabaseConfig database;
  private final OpsEndpoint ops;
  private final Startup startup;
  private final CaptureSettings capture;
  private final ApiServer.Settings http;
  private final PublicationApi.Limits api;
  private final SingleReservations.Settings groupCommit;
  private final Optional<InboxSettings> status;
  private final OutboxRetention outboxRetention;
  private final RetentionSettings retention;
  private final TenantTokens tenantTokens;

  private WriterConfig(ConfigValues values) {
    super(values);
    Map<String, String> tokenHashes = new LinkedHashMap<>();
    values
        .group(TENANTS)
        .forEach((tenant, v) -> tokenHashes.put(tenant, v.get(TENANT_TOKEN_SHA256)));
    Map<String, String> consumerOverrides = values.passThrough(KAFKA_CONSUMER);
    validate(values, tokenHashes, consumerOverrides);
    this.database = DB.read(values);
    this.ops = OPS.read(values);
    this.startup =
        new Startup(
            values.get(DB_STARTUP_TIMEOUT),
            values.get(DB_MIGRATE_ON_START),
            DB.readMigration(values, database));
    this.capture = new CaptureSettings(values.get(CAPTURE_PUBLICATION), values.get(CAPTURE_SLOT));
    this.http = readHttp(values);
    this.api =
        new PublicationApi.Limits(
            Math.toIntExact(values.get(HTTP_REQUEST_MAX_BYTES)),
            values.get(BATCH_MAX_ITEMS),
            values.get(HTTP_RETRY_AFTER),
            new LinkedHashSet<>(values.get(DESTINATIONS_ALLOWED)));
    this.groupCommit =
        new SingleReservations.Settings(
            values.get(GROUP_COMMIT_MAX_INTENTS), values.get(GROUP_COMMIT_MAX_IN_FLIGHT));
    this.status =
        values.get(STATUS_ENABLED)
            ? Optional.of(readStatus(values, consumerOverrides))
            : Optional.empty();
    this.outboxRetention = values.get(OUTBOX_RETENTION);
    this.retention = readRetention(values, outboxRetention, status.isPresent());
    this.tenantTokens = TenantTokens.of(tokenHashes);
  }

  private static ApiServer.Settings readHttp(ConfigValues values) {
    return new ApiServer.Settings(
        values.get(HTTP_HOST),
        values.get(HTTP_PORT),
        values.get(HTTP_READ_TIMEOUT),
        values.get(HTTP_MAX_CONCURRENT_REQUESTS),
        values.get(HTTP_MAX_QUEUED_REQUESTS),
        values.get(HTTP_QUEUE_TIMEOUT),
        values.get(HTTP_RETRY_AFTER),
        HTTP_STOP_TIMEOUT);
  }

  /** The status view's inbox loop: {@code writer.status.*} and {@code writer.kafka.*}. */
  private static InboxSettings readStatus(
      ConfigValues values, Map<String, String> consumerOverrides) {
    return new InboxSettings(
        "status events",
        values.get(KAFKA_BOOTSTRAP_SERVERS),
        values.get(STATUS_TOPIC),
        values.get(STATUS_GROUP_ID),
        STATUS_CLIENT_ID,
        values.get(STATUS_MAX_POLL_RECORDS),
        STATUS_POLL_TIMEOUT,
        values.get(STATUS_LINGER),
        values.get(STATUS_FAILURE_BACKOFF),
        values.get(STATUS_MAX_SILENCE),
        STATUS_METRIC_PREFIX,
        consumerOverrides);
  }

  /** The outbox is purged only when kept, the inbox only when the status view fills it. */
  private static RetentionSettings readRetention(
      ConfigValues values, OutboxRetention outboxRetention, boolean statusView) {
    Optional<RetentionSettings.Purge> outbox =
        outboxRetention == OutboxRetention.KEEP
            ? Optional.of(
                new RetentionSettings.Purge(
                    Duration.ofDays(values.get(OUTBOX_KEEP_DAYS)),
                    values.get(OUTBOX_PURGE_INTERVAL),
                    values.get(OUTBOX_PURGE_BATCH_SIZE),
                    values.get(OUTBOX_PURGE_MAX_BATCHES)))
            : Optional.empty();
    Optional<RetentionSettings.Purge> inbox =
        statusView
            ? Optional.of(
                new RetentionSettings.Purge(
                    values.get(STATUS_INBOX_RETENTION),
                    values.get(STATUS_INBOX_PURGE_INTERVAL),
                    values.get(STATUS_INBOX_PURGE_BATCH_SIZE),
                    STATUS_INBOX_PURGE_MAX_BATCHES))
            : Optional.empty();
    return new RetentionSettings(outbox, inbox);
  }

  /** Reads {@code file} with {@code env} overrides ({@code System.getenv()} in production). */
  public static WriterConfig load(Path file, Map<String, String> env) {
    return from(ConfigSource.load(file, env));
  }

  /**
   * Parses and validates {@code source}.
   *
   * @throws ConfigException naming every unknown key, missing key, bad value and contradiction
   */
  public static WriterConfig from(ConfigSource source) {
    return new WriterConfig(DEF.read(source));
  }

  /** Every writer key, for documentation and tests. */
  public static ConfigDef definition() {
    return DEF;
  }

  /** The cross-field checks; each key's own rule was checked when it was read. */
  private static void validate(
      ConfigValues values, Map<String, String> tokenHashes, Map<String, String> consumerOverrides) {
    ConfigProblems problems = new ConfigProblems();
    if (values.get(OUTBOX_RETENTION) == OutboxRetention.KEEP && values.get(OUTBOX_KEEP_DAYS) <= 0) {
      problems.contradiction(
          OUTBOX_KEEP_DAYS.name(),
          values.get(OUTBOX_KEEP_DAYS),
          "contradicts",
          OUTBOX_RETENTION.name(),
          "keep",
          "keeping rows needs at least 1 day (or use delete-immediately)");
    }
    for (String destination : values.get(DESTINATIONS_ALLOWED)) {
      // A destination is part of the Kafka key tenant/articleId/destination: the API refuses '/'.
      if (destination.contains("/")) {
        problems.add(
            DESTINATIONS_ALLOWED.name()
                + ": '"
                + destination
                + "' contains '/', which no publication's destination can");
      }
    }
    if (values.get(GROUP_COMMIT_MAX_IN_FLIGHT) >= values.get(DB.poolSize())) {
      problems.contradiction(
          GROUP_COMMIT_MAX_IN_FLIGHT.name(),
          values.get(GROUP_COMMIT_MAX_IN_FLIGHT),
          "is not below",
          DB.poolSize().name(),
          values.get(DB.poolSize()),
          "each group transaction holds a pooled connection, and GETs, batches and the status"
              + " view need one left");
    }
    STATUS_CONSUMER_OWNED.forEach(
        (owned, why) -> problems.ownedByHerald(KAFKA_CONSUMER, consumerOverrides, owned, why));
    if (tokenHashes.isEmpty()) {
      problems.add(
          TENANTS.fullName("<tenant>", TENANT_TOKEN_SHA256)
              + ": no tenant configured; every request would be rejected with 401");
    }
    Map<String, String> tenantByHash = new HashMap<>();
    tokenHashes.forEach(
        (tenant, hash) -> {
          String other = tenantByHash.putIfAbsent(hash, tenant);
          if (other != null) {
            problems.add(
                TENANTS.fullName(other, TENANT_TOKEN_SHA256)
                    + " and "
                    + TENANTS.fullName(tenant, TENANT_TOKEN_SHA256)
                    + " are equal: one token cannot identify two tenants");
          }
        });
    problems.throwIfAny();
  }

  /** Where /health and /metrics are served ({@code writer.ops.*}). */
  public OpsEndpoint ops() {
    return ops;
  }

  /** {@code writer.db.*}: the connection pool. */
  public DatabaseConfig database() {
    return database;
  }

  /**
   * {@code writer.db.startup-timeout}, {@code writer.db.migrate-on-start} and the migration user.
   */
  public Startup startup() {
    return startup;
  }

  /** {@code writer.capture.*}: the publication and slot the migrations create. */
  public CaptureSettings capture() {
    return capture;
  }

  /** {@code writer.http.*}: the API server's listener and admission limits. */
  public ApiServer.Settings http() {
    return http;
  }

  /**
   * The request limits of the API: {@code writer.http.request-max-bytes}, {@code
   * writer.batch.max-items}, {@code writer.http.retry-after}, {@code writer.destinations.allowed}.
   */
  public PublicationApi.Limits api() {
    return api;
  }

  /** {@code writer.group-commit.*}: how single POSTs share transactions. */
  public SingleReservations.Settings groupCommit() {
    return groupCommit;
  }

  /** {@code writer.status.*} and {@code writer.kafka.*}; empty when the status view is off. */
  public Optional<InboxSettings> status() {
    return status;
  }

  /** {@code writer.outbox.retention}, for the outbox writer. */
  public OutboxRetention outboxRetention() {
    return outboxRetention;
  }

  /**
   * {@code writer.outbox.*} and {@code writer.status.inbox-*}: what the retention purge deletes.
   */
  public RetentionSettings retention() {
    return retention;
  }

  /** {@code writer.tenants.*}: who may call the API. */
  public TenantTokens tenantTokens() {
    return tenantTokens;
  }
}
