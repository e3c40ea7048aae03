package io.herald.consumer.inbox;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How the listener reads {@code PublicationRequested} records.
 *
 * @param consumerOverrides passed to {@code KafkaConsumer} as they are ({@code kafka.consumer.*}
 *     without the prefix); the settings Herald's guarantees depend on cannot be overridden
 * @param producerOverrides passed to the dead-letter {@code KafkaProducer} ({@code
 *     kafka.producer.*})
 * @param failureBackoff pause after a failed batch (database or broker down) before it is re-read
 */
public record ListenerSettings(
    String bootstrapServers,
    String topic,
    String dlqTopic,
    String groupId,
    Duration pollTimeout,
    Duration failureBackoff,
    Map<String, String> consumerOverrides,
    Map<String, String> producerOverrides) {

  public ListenerSettings {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(dlqTopic, "dlqTopic");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(pollTimeout, "pollTimeout");
    Objects.requireNonNull(failureBackoff, "failureBackoff");
    consumerOverrides = Map.copyOf(consumerOverrides);
    producerOverrides = Map.copyOf(producerOverrides);
    if (topic.equals(dlqTopic)) {
      throw new IllegalArgumentException(
          "consumer.kafka.dlq-topic must differ from consumer.kafka.topic: " + topic);
    }
  }
}
