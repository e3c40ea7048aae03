package io.herald.cli.kafka;

import io.herald.cli.CliFailure;
import io.herald.config.Durations;
import io.herald.runtime.inbox.InboxSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * How the command reaches a process's Kafka cluster: its bootstrap servers, the connection settings
 * taken from the process's pass-through, and one bound for every request; from these, the settings
 * of each short-lived client the command makes (a group-less reader, the replay producer, an admin
 * client), each with the client id of its use. Also the one mapping of Kafka failures to exit codes
 * ({@link #failure}).
 *
 * <p>The pass-through rule: of a process's {@code kafka.consumer.*} (or producer) settings only
 * those that say how to reach and authenticate to the brokers pass ({@code security.*}, {@code
 * sasl.*}, {@code ssl.*}, {@code client.dns.lookup}). The rest tunes the process's long-running
 * group member (group, polling, fetch sizes, offsets reset, timeouts, interceptors); the command's
 * clients are short-lived, read without a group and must end within their bounds (exit 3), so those
 * settings are the command's own: read_committed as the consumer reads, and the timeouts here.
 *
 * <p>Immutable and thread-safe; the clients it makes are not.
 */
public final class KafkaClients {

  private static final int MAX_POLL_RECORDS = 2000;

  private final String bootstrapServers;
  private final Map<String, String> connection;
  private final Duration requestTimeout;

  private KafkaClients(
      String bootstrapServers, Map<String, ?> passThrough, Duration requestTimeout) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (requestTimeout.isZero() || requestTimeout.isNegative()) {
      throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
    }
    Map<String, String> kept = new HashMap<>();
    passThrough.forEach(
        (key, value) -> {
          if (connectionSetting(key) && value != null) {
            kept.put(key, String.valueOf(value));
          }
        });
    this.connection = Map.copyOf(kept);
  }

  /**
   * The cluster of {@code settings} (the consumer's intake, the writer's status view).
   *
   * @param requestTimeout how long one Kafka request may take before the command gives up
   */
  public static KafkaClients of(InboxSettings settings, Duration requestTimeout) {
    return new KafkaClients(
        settings.bootstrapServers(), settings.consumerOverrides(), requestTimeout);
  }

  /**
   * The cluster at {@code bootstrapServers}, with the connection settings of {@code passThrough} (a
   * {@code kafka.producer.*} or the relay's producer pass-through, prefix stripped).
   */
  public static KafkaClients of(
      String bootstrapServers, Map<String, ?> passThrough, Duration requestTimeout) {
    return new KafkaClients(bootstrapServers, passThrough, requestTimeout);
  }

  /** Whether {@code key} (prefix stripped) is a connection setting, which passes through. */
  static boolean connectionSetting(String key) {
    return key.startsWith("security.")
        || key.startsWith("sasl.")
        || key.startsWith("ssl.")
        || key.equals(CommonClientConfigs.CLIENT_DNS_LOOKUP_CONFIG);
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * A reader's settings: no group ({@code assign()} only, nothing committed), read_committed, never
   * creating a topic, byte-array keys and values, at most 2000 records a poll (what a reader holds
   * at a time).
   */
  public Map<String, Object> consumer(String clientId) {
    Map<String, Object> settings = common(clientId);
    settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    settings.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return settings;
  }

  /**
   * A producer's settings: every record acknowledged by all in-sync replicas, idempotent, blocking
   * and delivering within bounds.
   *
   * @param deliveryTimeout how long one record may take to be acknowledged, retries included; at
   *     least the request timeout
   */
  public Map<String, Object> producer(String clientId, Duration deliveryTimeout) {
    Map<String, Object> settings = common(clientId);
    settings.remove(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
    settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis(requestTimeout));
    settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis(deliveryTimeout));
    settings.put(ProducerConfig.ACKS_CONFIG, "all");
    settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return settings;
  }

  /** An admin client's settings. */
  public Map<String, Object> admin(String clientId) {
    return common(clientId);
  }

  /** A reader; a client that cannot be created is a configuration problem (exit 2). */
  public KafkaConsumer<byte[], byte[]> newConsumer(String clientId) {
    try {
      return new KafkaConsumer<>(consumer(clientId));
    } catch (KafkaException e) {
      throw CliFailure.usage("cannot create a Kafka client for " + bootstrapServers, e);
    }
  }

  /** A producer; a client that cannot be created is a configuration problem (exit 2). */
  public KafkaProducer<byte[], byte[]> newProducer(String clientId, Duration deliveryTimeout) {
    try {
      return new KafkaProducer<>(producer(clientId, deliveryTimeout));
    } catch (KafkaException e) {
      throw CliFailure.usage("cannot create a Kafka producer for " + bootstrapServers, e);
    }
  }

  /**
   * The offsets {@code groupId} has committed on {@code topic}'s partitions: the next record the
   * group will read. A partition without a commit is absent.
   *
   * @throws CliFailure as {@link #failure} maps it
   */
  public Map<Integer, Long> committedOffsets(String clientId, String groupId, String topic) {
    Admin admin;
    try {
      admin = Admin.create(admin(clientId));
    } catch (KafkaException e) {
      throw CliFailure.usage("cannot create a Kafka admin client for " + bootstrapServers, e);
    }
    try (admin) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(groupId)
              .partitionsToOffsetAndMetadata()
              .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      Map<Integer, Long> result = new HashMap<>();
      offsets.forEach(
          (partition, offset) -> {
            if (partition.topic().equals(topic) && offset != null) {
              result.put(partition.partition(), offset.offset());
            }
          });
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted reading the offsets of group " + groupId, e);
    } catch (Exception e) {
      throw failure("read the committed offsets of group " + groupId, e);
    }
  }

  /**
   * The one mapping of a Kafka failure while doing {@code doing} ("read topic x") to an exit code:
   * refused credentials or access, or a setting Kafka rejects, are configuration (exit 2); anything
   * else (no answer in time, a broker gone) is Kafka unreachable (exit 3). The message names what
   * was being done and the bootstrap servers; a future's wrapper is unwrapped.
   */
  public CliFailure failure(String doing, Throwable e) {
    Throwable cause = e;
    while ((cause instanceof ExecutionException || cause instanceof CompletionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String what = "cannot " + doing + " at Kafka " + bootstrapServers;
    if (cause instanceof AuthenticationException
        || cause instanceof AuthorizationException
        || cause instanceof ConfigException) {
      return CliFailure.usage(what + ": refused, check the Kafka client settings", cause);
    }
    if (cause instanceof org.apache.kafka.common.errors.TimeoutException
        || cause instanceof java.util.concurrent.TimeoutException) {
      return CliFailure.unreachable(
          what + ": no answer within " + Durations.format(requestTimeout), cause);
    }
    return CliFailure.unreachable(what, cause);
  }

  private Map<String, Object> common(String clientId) {
    Map<String, Object> settings = new HashMap<>(connection);
    settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    // Each use its own id: two clients of one id collide on their JMX registration.
    settings.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    // A broker that does not answer must end the command, not hang it.
    settings.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, millis(requestTimeout));
    settings.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, millis(requestTimeout));
    return settings;
  }

  private static int millis(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
  }
}
