package io.herald.writer.status;

import io.herald.config.ConfigException;
import io.herald.writer.config.WriterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The status view's settings ({@code writer.status.*}), validated once. Immutable.
 *
 * @param consumerOverrides {@code writer.kafka.consumer.*} with the prefix stripped; holds secrets,
 *     never logged
 */
public record StatusSettings(
    String bootstrapServers,
    String topic,
    String groupId,
    int maxPollRecords,
    Duration pollTimeout,
    Duration failureBackoff,
    Duration maxSilence,
    Duration inboxRetention,
    Duration inboxPurgeInterval,
    int inboxPurgeBatchSize,
    int inboxPurgeMaxBatches,
    Map<String, String> consumerOverrides) {

  /** Settings Herald owns: a pass-through value for one of these is a contradiction. */
  static final Set<String> OWNED =
      Set.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

  private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);
  private static final int INBOX_PURGE_MAX_BATCHES = 100;

  public StatusSettings {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(pollTimeout, "pollTimeout");
    Objects.requireNonNull(failureBackoff, "failureBackoff");
    Objects.requireNonNull(maxSilence, "maxSilence");
    Objects.requireNonNull(inboxRetention, "inboxRetention");
    Objects.requireNonNull(inboxPurgeInterval, "inboxPurgeInterval");
    if (maxPollRecords < 1 || inboxPurgeBatchSize < 1 || inboxPurgeMaxBatches < 1) {
      throw new IllegalArgumentException(
          "status view bounds must be positive: maxPollRecords="
              + maxPollRecords
              + ", inboxPurgeBatchSize="
              + inboxPurgeBatchSize
              + ", inboxPurgeMaxBatches="
              + inboxPurgeMaxBatches);
    }
    consumerOverrides = Map.copyOf(consumerOverrides);
  }

  /**
   * The status view's settings from the writer's configuration.
   *
   * @throws ConfigException a pass-through key sets what Herald owns (named with its value)
   */
  public static StatusSettings from(WriterConfig config) {
    Map<String, String> overrides = config.values().passThrough(WriterConfig.KAFKA_CONSUMER);
    List<String> problems = new ArrayList<>();
    for (String owned : OWNED.stream().sorted().toList()) {
      if (overrides.containsKey(owned)) {
        problems.add(
            WriterConfig.KAFKA_CONSUMER
                + owned
                + "="
                + overrides.get(owned)
                + " is set by Herald: use writer.kafka.bootstrap-servers and the writer.status.* keys (offsets are committed only"
                + " after the database commit)");
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return new StatusSettings(
        config.kafkaBootstrapServers(),
        config.statusTopic(),
        config.statusGroupId(),
        config.get(WriterConfig.STATUS_MAX_POLL_RECORDS),
        POLL_TIMEOUT,
        config.get(WriterConfig.STATUS_FAILURE_BACKOFF),
        config.get(WriterConfig.STATUS_MAX_SILENCE),
        config.get(WriterConfig.STATUS_INBOX_RETENTION),
        config.get(WriterConfig.STATUS_INBOX_PURGE_INTERVAL),
        config.get(WriterConfig.STATUS_INBOX_PURGE_BATCH_SIZE),
        INBOX_PURGE_MAX_BATCHES,
        overrides);
  }

  @Override
  public String toString() {
    return "StatusSettings[topic="
        + topic
        + ", groupId="
        + groupId
        + ", bootstrapServers="
        + bootstrapServers
        + ", maxPollRecords="
        + maxPollRecords
        + ", inboxRetention="
        + inboxRetention
        + "]";
  }
}
