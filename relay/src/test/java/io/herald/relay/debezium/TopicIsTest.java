package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class TopicIsTest {

  private static SourceRecord on(String topic) {
    return new SourceRecord(Map.of(), Map.of(), topic, null, null);
  }

  private static TopicIs<SourceRecord> topicIs(String topic) {
    TopicIs<SourceRecord> predicate = new TopicIs<>();
    predicate.configure(Map.of("topic", topic));
    return predicate;
  }

  @Test
  void shouldHoldOnlyForRecordsOfItsTopicByExactName() {
    TopicIs<SourceRecord> writer = topicIs("herald.writer.outbox");

    assertThat(writer.test(on("herald.writer.outbox"))).isTrue();
    assertThat(writer.test(on("herald.consumer.outbox"))).isFalse();
    assertThat(writer.test(on("herald.writer.outbox2"))).isFalse();
    assertThat(writer.test(on("heraldXwriterXoutbox"))).isFalse();
    assertThat(writer.test(on(null))).isFalse();
  }

  @Test
  void shouldRefuseAMissingOrBlankTopicNamingTheKey() {
    assertThatThrownBy(() -> new TopicIs<SourceRecord>().configure(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topic");
    assertThatThrownBy(() -> topicIs(" "))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topic");
  }
}
