package io.herald.consumer.config;

import io.herald.common.config.ConfigDef;
import io.herald.common.config.ConfigException;
import io.herald.common.config.ConfigGroup;
import io.herald.common.config.ConfigKey;
import io.herald.common.config.ConfigSource;
import io.herald.common.config.ConfigType;
import io.herald.common.config.ConfigValues;
import io.herald.common.config.Durations;
import io.herald.common.config.EffectiveConfig;
import io.herald.common.config.Validator;
import io.herald.common.event.Topics;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.DatabaseKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The consumer's configuration, parsed once from {@code connect-config/consumer.properties} plus
 * {@code HERALD_*} environment overrides (mapping: {@link ConfigSource}). {@code kafka.consumer.*}
 * and {@code kafka.producer.*} pass through to the Kafka clients. Immutable and thread-safe.
 *
 * <p>To add a key, define one constant below (before {@code DEF}); read it with {@link
 * #get(ConfigKey)} or add a typed accessor. Destination keys are members of {@link #DESTINATIONS}.
 */
public final class ConsumerConfig {

  /** What happens to a consumer outbox row once committed (see the writer's equivalent). */
  public enum OutboxRetention {
    /** Deleted in the inserting transaction; the WAL carries the event. */
    DELETE_IMMEDIATELY,
    /** Kept keep-days, then purged in batches. */
    KEEP
  }

  /** One destination API, from {@code consumer.destinations.<name>.*}. */
  public record Destination(
      String name,
      String baseUrl,
      boolean idempotencyKeySupported,
      boolean lookupSupported,
      Duration connectTimeout,
      Duration readTimeout,
      int concurrency,
      Optional<String> authToken) {

    @Override
    public String toString() {
      return "Destination["
          + name
          + ", "
          + EffectiveConfig.maskEmbedded(baseUrl)
          + ", idempotencyKeySupported="
          + idempotencyKeySupported
          + ", lookupSupported="
          + lookupSupported
          + ", connectTimeout="
          + Durations.format(connectTimeout)
          + ", readTimeout="
          + Durations.format(readTimeout)
          + ", concurrency="
          + concurrency
          + ", authToken="
          + (authToken.isPresent() ? "****" : "(none)")
          + "]";
    }
  }

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("consumer");

  public static final ConfigKey<String> OPS_HOST =
      KEYS.define(
          ConfigKey.optional(
              "consumer.ops.host",
              ConfigType.STRING,
              "0.0.0.0",
              "Interface /health and /metrics bind to."));
  public static final ConfigKey<Integer> OPS_PORT =
      KEYS.define(
          ConfigKey.optional(
                  "consumer.ops.port",
                  ConfigType.INT,
                  8083,
                  "Port of /health and /metrics (0 = any free port).")
              .validatedBy(Validator.port()));

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
                  "How long a claim on a delivery lasts; must outlast one destination call.")
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
                  "Pause of an idle dispatcher before it looks for due deliveries again.")
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
                  Duration.ofSeconds(30),
                  "Pause between reconciliation runs.")
              .validatedBy(Validator.positive()));
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
  public static final ConfigKey<Boolean> DESTINATION_IDEMPOTENCY_KEY_SUPPORTED =
      DESTINATIONS.define(
          ConfigKey.optional(
              "idempotency-key-supported",
              ConfigType.BOOLEAN,
              false,
              "The destination honours Idempotency-Key: an uncertain attempt may be retried with the same key."));
  public static final ConfigKey<Boolean> DESTINATION_LOOKUP_SUPPORTED =
      DESTINATIONS.define(
          ConfigKey.optional(
              "lookup-supported",
              ConfigType.BOOLEAN,
              false,
              "The destination can look an article up by our external reference: reconciliation may prove 'not found'."));
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

  /** {@code KafkaConsumer} settings, prefix stripped. */
  public static final String KAFKA_CONSUMER =
      KEYS.passThrough("kafka.consumer.", "KafkaConsumer settings (security, fetch sizes, ...).");

  /** {@code KafkaProducer} settings (dead-letter topic), prefix stripped. */
  public static final String KAFKA_PRODUCER =
      KEYS.passThrough(
          "kafka.producer.", "KafkaProducer settings for the dead-letter topic (security, ...).");

  private static final ConfigDef DEF = KEYS.build(); // keep last: defining after build fails

  private final ConfigValues values;
  private final DatabaseConfig database;
  private final Map<String, Destination> destinations;

  private ConsumerConfig(ConfigValues values) {
    this.values = values;
    this.database = DB.read(values);
    Map<String, Destination> map = new LinkedHashMap<>();
    values
        .group(DESTINATIONS)
        .forEach(
            (name, v) ->
                map.put(
                    name,
                    new Destination(
                        name,
                        v.get(DESTINATION_BASE_URL),
                        v.get(DESTINATION_IDEMPOTENCY_KEY_SUPPORTED),
                        v.get(DESTINATION_LOOKUP_SUPPORTED),
                        v.get(DESTINATION_CONNECT_TIMEOUT),
                        v.get(DESTINATION_READ_TIMEOUT),
                        v.get(DESTINATION_CONCURRENCY),
                        v.find(DESTINATION_AUTH_TOKEN))));
    this.destinations = Collections.unmodifiableMap(map);
    validate();
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

  private void validate() {
    List<String> problems = new ArrayList<>();
    if (backoffBase().compareTo(backoffMax()) > 0) {
      problems.add(
          DISPATCH_BACKOFF_BASE.name()
              + "="
              + Durations.format(backoffBase())
              + " is longer than "
              + DISPATCH_BACKOFF_MAX.name()
              + "="
              + Durations.format(backoffMax()));
    }
    for (Destination d : destinations.values()) {
      Duration call = d.connectTimeout().plus(d.readTimeout());
      if (lease().compareTo(call) <= 0) {
        problems.add(
            DISPATCH_LEASE.name()
                + "="
                + Durations.format(lease())
                + " is not longer than "
                + DESTINATIONS.prefix()
                + "."
                + d.name()
                + "."
                + DESTINATION_CONNECT_TIMEOUT.name()
                + "="
                + Durations.format(d.connectTimeout())
                + " + "
                + DESTINATIONS.prefix()
                + "."
                + d.name()
                + "."
                + DESTINATION_READ_TIMEOUT.name()
                + "="
                + Durations.format(d.readTimeout())
                + ": a claim could expire while its call is still in flight");
      }
    }
    if (inboxRetention().compareTo(inboxRedeliveryWindow()) < 0) {
      problems.add(
          INBOX_RETENTION.name()
              + "="
              + Durations.format(inboxRetention())
              + " is shorter than "
              + INBOX_REDELIVERY_WINDOW.name()
              + "="
              + Durations.format(inboxRedeliveryWindow())
              + ": a redelivered record could be processed twice");
    }
    if (outboxRetention() == OutboxRetention.KEEP && outboxKeepDays() <= 0) {
      problems.add(
          OUTBOX_KEEP_DAYS.name()
              + "="
              + outboxKeepDays()
              + " contradicts "
              + OUTBOX_RETENTION.name()
              + "=keep: keeping rows needs at least 1 day (or use delete-immediately)");
    }
    if (destinations.isEmpty()) {
      problems.add(
          DESTINATIONS.prefix()
              + ".<name>."
              + DESTINATION_BASE_URL.name()
              + ": no destination configured; every delivery would fail");
    }
    checkPassThrough(
        problems,
        KAFKA_CONSUMER,
        kafkaConsumer(),
        "bootstrap.servers",
        KAFKA_BOOTSTRAP_SERVERS,
        kafkaBootstrapServers());
    checkPassThrough(
        problems, KAFKA_CONSUMER, kafkaConsumer(), "group.id", KAFKA_GROUP_ID, groupId());
    checkPassThrough(
        problems,
        KAFKA_PRODUCER,
        kafkaProducer(),
        "bootstrap.servers",
        KAFKA_BOOTSTRAP_SERVERS,
        kafkaBootstrapServers());
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  private static void checkPassThrough(
      List<String> problems,
      String prefix,
      Map<String, String> map,
      String name,
      ConfigKey<String> key,
      String value) {
    String passed = map.get(name);
    if (passed != null && !passed.equals(value)) {
      problems.add(
          prefix
              + name
              + "="
              + passed
              + " contradicts "
              + key.name()
              + "="
              + value
              + ": set it once, in "
              + key.name());
    }
  }

  /** The value of any consumer key (for keys without a typed accessor yet). */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  /** The parsed values behind this config. */
  public ConfigValues values() {
    return values;
  }

  /** The effective configuration for the start-up log, secrets masked. */
  public EffectiveConfig effective() {
    return values.effective();
  }

  public String opsHost() {
    return values.get(OPS_HOST);
  }

  public int opsPort() {
    return values.get(OPS_PORT);
  }

  public DatabaseConfig database() {
    return database;
  }

  public boolean migrateOnStart() {
    return values.get(DB_MIGRATE_ON_START);
  }

  public String capturePublication() {
    return values.get(CAPTURE_PUBLICATION);
  }

  public String captureSlot() {
    return values.get(CAPTURE_SLOT);
  }

  public String kafkaBootstrapServers() {
    return values.get(KAFKA_BOOTSTRAP_SERVERS);
  }

  public String groupId() {
    return values.get(KAFKA_GROUP_ID);
  }

  public String publicationEventsTopic() {
    return values.get(TOPIC_PUBLICATION_EVENTS);
  }

  public String dlqTopic() {
    return values.get(TOPIC_DLQ);
  }

  /** {@code kafka.consumer.*}, prefix stripped. Holds secrets: never log it. */
  public Map<String, String> kafkaConsumer() {
    return values.passThrough(KAFKA_CONSUMER);
  }

  /** {@code kafka.producer.*}, prefix stripped. Holds secrets: never log it. */
  public Map<String, String> kafkaProducer() {
    return values.passThrough(KAFKA_PRODUCER);
  }

  public int dispatcherPoolSize() {
    return values.get(DISPATCH_POOL_SIZE);
  }

  public Duration lease() {
    return values.get(DISPATCH_LEASE);
  }

  public int maxAttempts() {
    return values.get(DISPATCH_MAX_ATTEMPTS);
  }

  public Duration backoffBase() {
    return values.get(DISPATCH_BACKOFF_BASE);
  }

  public Duration backoffMax() {
    return values.get(DISPATCH_BACKOFF_MAX);
  }

  public Duration dispatchPollInterval() {
    return values.get(DISPATCH_POLL_INTERVAL);
  }

  public Duration reconciliationGracePeriod() {
    return values.get(RECONCILE_GRACE_PERIOD);
  }

  public Duration reconciliationInterval() {
    return values.get(RECONCILE_INTERVAL);
  }

  public Duration inboxRetention() {
    return values.get(INBOX_RETENTION);
  }

  public Duration inboxRedeliveryWindow() {
    return values.get(INBOX_REDELIVERY_WINDOW);
  }

  public OutboxRetention outboxRetention() {
    return values.get(OUTBOX_RETENTION);
  }

  public int outboxKeepDays() {
    return values.get(OUTBOX_KEEP_DAYS);
  }

  public int outboxPurgeBatchSize() {
    return values.get(OUTBOX_PURGE_BATCH_SIZE);
  }

  /** Destinations by name (the {@code destination} field of publication requests). */
  public Map<String, Destination> destinations() {
    return destinations;
  }

  @Override
  public String toString() {
    return effective().render();
  }
}
