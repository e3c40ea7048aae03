package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.relational.TableId;
import io.debezium.schema.SchemaTopicNamingStrategy;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CachedTopicNamesTest {

  private static Properties props() {
    Properties props = new Properties();
    props.put("topic.prefix", "herald");
    return props;
  }

  @Test
  void shouldNameEveryTableAsDebeziumDoes() {
    CachedTopicNames cached = new CachedTopicNames(props());
    SchemaTopicNamingStrategy debezium = new SchemaTopicNamingStrategy(props());

    for (TableId table :
        new TableId[] {
          new TableId(null, "writer", "outbox"),
          new TableId(null, "consumer", "outbox"),
          new TableId(null, "herald_relay", "heartbeat"),
          new TableId(null, "odd schema", "tab$le")
        }) {
      assertThat(cached.dataChangeTopic(table)).isEqualTo(debezium.dataChangeTopic(table));
      assertThat(cached.dataChangeTopic(table)).isEqualTo(debezium.dataChangeTopic(table));
    }
    assertThat(cached.dataChangeTopic(new TableId(null, "writer", "outbox")))
        .isEqualTo("herald.writer.outbox");
  }

  @Test
  void shouldKeepNamingCorrectlyPastItsBound() {
    CachedTopicNames cached = new CachedTopicNames(props());

    for (int i = 0; i < CachedTopicNames.MAX_TABLES + 50; i++) {
      TableId table = new TableId(null, "s", "t" + i);
      assertThat(cached.dataChangeTopic(table)).isEqualTo("herald.s.t" + i);
    }
    assertThat(
            cached.dataChangeTopic(
                new TableId(null, "s", "t" + (CachedTopicNames.MAX_TABLES + 49))))
        .isEqualTo("herald.s.t" + (CachedTopicNames.MAX_TABLES + 49));
  }
}
