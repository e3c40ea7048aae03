package io.herald.writer.status;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The status view's settings, built and validated by {@code WriterConfig} from {@code
 * writer.status.*} and {@code writer.kafka.*}; each field is named after its key. Immutable.
 *
 * @param bootstrapServers {@code writer.kafka.bootstrap-servers}
 * @param pollTimeout how long one poll blocks (not a setting)
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
    Map<String, String> consumerOverrides) {

  public StatusSettings {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(pollTimeout, "pollTimeout");
    Objects.requireNonNull(failureBackoff, "failureBackoff");
    Objects.requireNonNull(maxSilence, "maxSilence");
    consumerOverrides = Map.copyOf(consumerOverrides);
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
        + "]";
  }
}
