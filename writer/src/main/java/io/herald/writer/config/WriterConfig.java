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
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The writer's configuration, parsed once from {@code connect-config/writer.properties} plus {@code
 * HERALD_*} environment overrides (mapping: {@link ConfigSource}). Immutable and thread-safe.
 *
 * <p>To add a key, define one constant below (before {@code DEF}); read it with {@link
 * #get(ConfigKey)} or add a typed accessor. Every key must also be documented in the shipped
 * property file (a test checks it).
 *
 * <pre>{@code
 * WriterConfig config = WriterConfig.load(Path.of("connect-config/writer.properties"), System.getenv());
 * log.info("{}", config.effective());
 * }</pre>
 */
public final class WriterConfig extends ProcessConfig {

  /** What happens to an outbox row once it is committed (the WAL already holds the event). */
  public enum OutboxRetention {
    /** Deleted in the inserting transaction: the table stays empty, the WAL carries the event. */
    DELETE_IMMEDIATELY,
    /** Kept for an audit window and purged in batches. */
    KEEP
  }

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
                  "Requests that may wait (without a thread) for one of the concurrent slots; beyond that 503.")
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
  public static final ConfigKey<String> OPS_HOST =
      KEYS.define(
          ConfigKey.optional(
              "writer.ops.host",
              ConfigType.STRING,
              "0.0.0.0",
              "Interface /health and /metrics bind to."));
  public static final ConfigKey<Integer> OPS_PORT =
      KEYS.define(
          ConfigKey.optional(
                  "writer.ops.port",
                  ConfigType.INT,
                  8081,
                  "Port of /health and /metrics, apart from the API so they can stay internal (0 = any free port).")
              .validatedBy(Validator.port()));
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
              OutboxRetention.DELETE_IMMEDIATELY,
              "delete-immediately (default): delete the outbox row in the inserting transaction, the"
                  + " WAL retained by the slot carries the event; keep: keep it keep-days, then purge."));
  public static final ConfigKey<Integer> OUTBOX_KEEP_DAYS =
      KEYS.define(
          ConfigKey.optional(
              "writer.outbox.keep-days",
              ConfigType.INT,
              7,
              "Days an outbox row is kept when retention is keep."));
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

  private final DatabaseConfig database;
  private final Map<String, String> tenantTokenHashes;

  private WriterConfig(ConfigValues values) {
    super(values);
    this.database = DB.read(values);
    Map<String, String> tokens = new LinkedHashMap<>();
    values.group(TENANTS).forEach((tenant, v) -> tokens.put(tenant, v.get(TENANT_TOKEN_SHA256)));
    this.tenantTokenHashes = Collections.unmodifiableMap(tokens);
    validate();
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

  private void validate() {
    ConfigProblems problems = new ConfigProblems();
    if (outboxRetention() == OutboxRetention.KEEP && outboxKeepDays() <= 0) {
      problems.contradiction(
          OUTBOX_KEEP_DAYS.name(),
          outboxKeepDays(),
          "contradicts",
          OUTBOX_RETENTION.name(),
          "keep",
          "keeping rows needs at least 1 day (or use delete-immediately)");
    }
    if (tenantTokenHashes.isEmpty()) {
      problems.add(
          TENANTS.fullName("<tenant>", TENANT_TOKEN_SHA256)
              + ": no tenant configured; every request would be rejected with 401");
    }
    Map<String, String> tenantByHash = new HashMap<>();
    tenantTokenHashes.forEach(
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

  public String httpHost() {
    return get(HTTP_HOST);
  }

  public int httpPort() {
    return get(HTTP_PORT);
  }

  public long httpRequestMaxBytes() {
    return get(HTTP_REQUEST_MAX_BYTES);
  }

  public Duration httpReadTimeout() {
    return get(HTTP_READ_TIMEOUT);
  }

  public int httpMaxConcurrentRequests() {
    return get(HTTP_MAX_CONCURRENT_REQUESTS);
  }

  public int httpMaxQueuedRequests() {
    return get(HTTP_MAX_QUEUED_REQUESTS);
  }

  public Duration httpQueueTimeout() {
    return get(HTTP_QUEUE_TIMEOUT);
  }

  public Duration httpRetryAfter() {
    return get(HTTP_RETRY_AFTER);
  }

  /** The Kafka brokers of the status view. */
  public String kafkaBootstrapServers() {
    return get(KAFKA_BOOTSTRAP_SERVERS);
  }

  public String statusTopic() {
    return get(STATUS_TOPIC);
  }

  public String statusGroupId() {
    return get(STATUS_GROUP_ID);
  }

  public String opsHost() {
    return get(OPS_HOST);
  }

  public int opsPort() {
    return get(OPS_PORT);
  }

  public Duration databaseStartupTimeout() {
    return get(DB_STARTUP_TIMEOUT);
  }

  public int outboxPurgeMaxBatches() {
    return get(OUTBOX_PURGE_MAX_BATCHES);
  }

  public int batchMaxItems() {
    return get(BATCH_MAX_ITEMS);
  }

  public DatabaseConfig database() {
    return database;
  }

  public boolean migrateOnStart() {
    return get(DB_MIGRATE_ON_START);
  }

  public String capturePublication() {
    return get(CAPTURE_PUBLICATION);
  }

  public String captureSlot() {
    return get(CAPTURE_SLOT);
  }

  public OutboxRetention outboxRetention() {
    return get(OUTBOX_RETENTION);
  }

  public int outboxKeepDays() {
    return get(OUTBOX_KEEP_DAYS);
  }

  public int outboxPurgeBatchSize() {
    return get(OUTBOX_PURGE_BATCH_SIZE);
  }

  public Duration outboxPurgeInterval() {
    return get(OUTBOX_PURGE_INTERVAL);
  }

  /** Tenant id -> lowercase hex SHA-256 of its bearer token. */
  public Map<String, String> tenantTokenHashes() {
    return tenantTokenHashes;
  }
}
