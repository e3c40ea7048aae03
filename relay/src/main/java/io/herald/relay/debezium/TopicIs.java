package io.herald.relay.debezium;

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
 * <p><b>Works around</b> (Kafka Connect 4, under Debezium 3.6.1): {@code TopicNameMatches} does the
 * same with a regular expression, matched for every record by each router's predicate: a {@code
 * Matcher} and its group arrays per test, a visible share of the bytes a drain allocates and of the
 * transform thread (docs/benchmarks-history.md, "Relay: draining a backlog"). The change topic of a
 * table is a fixed name, so an equality test is enough.
 *
 * <p><b>Would let it go</b>: Kafka Connect offering a literal topic-name predicate, or a regex
 * match that no longer shows in the profile; with {@code relay.engine.debezium-patches=false} the
 * routers use {@code TopicNameMatches} on the quoted name.
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
