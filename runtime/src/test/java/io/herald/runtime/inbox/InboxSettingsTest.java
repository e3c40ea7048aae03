package io.herald.runtime.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/** Records per poll, as the loop's linger counts them: Herald's key, the pass-through, Kafka's. */
class InboxSettingsTest {

  @Test
  void shouldTakeRecordsPerPollFromTheKeyThenThePassThroughThenKafkasDefault() {
    assertThat(settings(25, Map.of("max.poll.records", "7")).effectiveMaxPollRecords())
        .isEqualTo(25);
    assertThat(settings(null, Map.of("max.poll.records", " 7 ")).effectiveMaxPollRecords())
        .isEqualTo(7);
    assertThat(settings(null, Map.of()).effectiveMaxPollRecords())
        .isEqualTo(ConsumerConfig.DEFAULT_MAX_POLL_RECORDS);
  }

  @Test
  void shouldRefuseRecordsPerPollThatAreNotAPositiveWholeNumber() {
    assertThatThrownBy(() -> settings(null, Map.of("max.poll.records", "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max.poll.records")
        .hasMessageContaining("'lots'");
    assertThatThrownBy(() -> settings(null, Map.of("max.poll.records", "0")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> settings(0, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPollRecords");
  }

  private static InboxSettings settings(Integer maxPollRecords, Map<String, String> overrides) {
    return new InboxSettings(
        "test events",
        "localhost:9092",
        "topic",
        "group",
        "client",
        maxPollRecords,
        Duration.ofMillis(200),
        Duration.ZERO,
        Duration.ofMillis(200),
        Duration.ofSeconds(30),
        "herald.test.inbox",
        overrides);
  }
}
