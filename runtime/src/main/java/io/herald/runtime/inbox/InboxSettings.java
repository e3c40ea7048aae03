package io.herald.runtime.inbox;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * How one {@link InboxLoop} reads its topic. Immutable; built by a process's configuration.
 *
 * @param name what the loop applies, in logs, health and its thread name ({@code publication
 *     events}, {@code status events})
 * @param clientId the Kafka client id unless the pass-through sets one
 * @param maxPollRecords records per poll, hence per transaction; null leaves Kafka's default (then
 *     {@code max.poll.records} may be passed through)
 * @param linger after a poll that found records, how long the loop polls on to add what arrives
 *     meanwhile to the same batch (one transaction); zero applies each poll alone
 * @param maxSilence how long without a poll, or without broker contact, before {@link
 *     InboxLoop#health()} reports the loop degraded
 * @param metricPrefix prefix of the loop's gauges ({@code herald.writer.status})
 * @param consumerOverrides pass-through {@code KafkaConsumer} settings, prefix stripped; never one
 *     of {@link #OWNED} (the configuration refuses those). Holds secrets: never logged
 */
public record InboxSettings(
    String name,
    String bootstrapServers,
    String topic,
    String groupId,
    String clientId,
    Integer maxPollRecords,
    Duration pollTimeout,
    Duration linger,
    Duration failureBackoff,
    Duration maxSilence,
    String metricPrefix,
    Map<String, String> consumerOverrides) {

  /**
   * Consumer settings the inbox guarantees rest on (offsets committed only after the database
   * commit, raw bytes to the decoder) or that Herald configures under its own keys. A process
   * configuration refuses them under its pass-through prefix; {@code max.poll.records} is owned too
   * where the process has a key for it.
   */
  public static final Set<String> OWNED =
      Set.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

  public InboxSettings {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(pollTimeout, "pollTimeout");
    Objects.requireNonNull(linger, "linger");
    if (linger.isNegative()) {
      throw new IllegalArgumentException("linger must not be negative, was " + linger);
    }
    Objects.requireNonNull(failureBackoff, "failureBackoff");
    Objects.requireNonNull(maxSilence, "maxSilence");
    Objects.requireNonNull(metricPrefix, "metricPrefix");
    consumerOverrides = Map.copyOf(consumerOverrides);
    if (maxPollRecords != null && maxPollRecords < 1) {
      throw new IllegalArgumentException(
          "maxPollRecords must be at least 1, was " + maxPollRecords);
    }
    String passedThrough = consumerOverrides.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    if (maxPollRecords == null && passedThrough != null && !isRecordsPerPoll(passedThrough)) {
      throw new IllegalArgumentException(
          ConsumerConfig.MAX_POLL_RECORDS_CONFIG
              + " (passed through) must be a whole number of at least 1, was '"
              + passedThrough
              + "'");
    }
  }

  /**
   * Whether a passed-through {@code max.poll.records} is one the loop can count to: a whole number
   * of at least 1. A process configuration checks it with this too, to name its own key.
   */
  public static boolean isRecordsPerPoll(String value) {
    try {
      return Integer.parseInt(value.strip()) >= 1;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Records per poll as the Kafka consumer will take them: Herald's key, else the pass-through,
   * else Kafka's default. The loop's linger stops there.
   */
  public int effectiveMaxPollRecords() {
    if (maxPollRecords != null) {
      return maxPollRecords;
    }
    String passedThrough = consumerOverrides.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    return passedThrough != null
        ? Integer.parseInt(passedThrough.strip())
        : ConsumerConfig.DEFAULT_MAX_POLL_RECORDS;
  }

  @Override
  public String toString() {
    return "InboxSettings[" + name + ", topic=" + topic + ", groupId=" + groupId + "]";
  }
}
