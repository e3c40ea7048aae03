package io.herald.relay.engine;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * A predicate that holds for records of one topic, by name ({@code topic}): what selects each
 * outbox table's router.
 *
 * <p>Kafka's {@code TopicNameMatches} would do the same with a regular expression, matched for
 * every record by each router's predicate: a {@code Matcher} and its group arrays per test, 4 % of
 * the bytes a drain allocated and 7 % of the transform thread (JFR, BENCHMARKS.md). The change
 * topic of a table is a fixed name, so an equality test is enough.
 *
 * <p>Immutable once configured; thread-safe.
 */
public final class TopicIs<R extends ConnectRecord<R>> implements Predicate<R> {

  static final String TOPIC = "topic";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              TOPIC,
              ConfigDef.Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              ConfigDef.Importance.HIGH,
              "The topic a record must have for the predicate to hold.");

  private volatile String topic;

  @Override
  public ConfigDef config() {
    return CONFIG;
  }

  @Override
  public void configure(Map<String, ?> configs) {
    String name = new AbstractConfig(CONFIG, configs).getString(TOPIC);
    if (name == null || name.isBlank()) {
      throw new ConfigException(TOPIC, name, "must name a topic");
    }
    this.topic = name;
  }

  @Override
  public boolean test(R record) {
    return topic.equals(record.topic());
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "TopicIs{" + topic + "}";
  }
}
