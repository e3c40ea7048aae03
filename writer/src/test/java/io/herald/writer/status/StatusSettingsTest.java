package io.herald.writer.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.config.ConfigSource;
import io.herald.runtime.inbox.InboxLoop;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.writer.config.WriterConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class StatusSettingsTest {

  private static WriterConfig config(Map<String, String> extra) {
    Map<String, String> props = new HashMap<>();
    props.put("writer.db.jdbc-url", "jdbc:postgresql://localhost:5432/herald");
    props.put("writer.db.user", "herald");
    props.put(
        "writer.tenants.t1.token-sha256",
        "0b5b13611b87f8b25498d2f00df7dc424b2dbee0c0a6bf233a2b63207c2e847a");
    props.putAll(extra);
    return WriterConfig.from(ConfigSource.of(props, Map.of()));
  }

  @Test
  void shouldDefaultToTheDeliveryEventsTopicInItsOwnGroup() {
    InboxSettings settings = config(Map.of()).status().orElseThrow();

    assertThat(settings.topic()).isEqualTo("herald.delivery.events");
    assertThat(settings.groupId()).isEqualTo("herald-writer-status");
    assertThat(settings.bootstrapServers()).isEqualTo("localhost:9092");
    assertThat(settings.maxPollRecords()).isEqualTo(500);
    assertThat(config(Map.of()).retention().inbox().orElseThrow().retention())
        .isEqualTo(Duration.ofDays(7));
  }

  @Test
  void shouldPassConsumerSettingsThroughButKeepWhatTheGuaranteesRestOn() {
    InboxSettings settings =
        config(
                Map.of(
                    "writer.kafka.consumer.security.protocol", "SASL_SSL",
                    "writer.kafka.consumer.auto.offset.reset", "latest",
                    "writer.status.max-poll-records", "7"))
            .status()
            .orElseThrow();

    Map<String, Object> props = InboxLoop.consumerProperties(settings);

    assertThat(props)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")
        .containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7)
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "herald-writer-status");
  }
}
