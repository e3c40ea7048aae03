package io.herald.relay.debezium;

import io.debezium.transforms.outbox.EventRouter;
import io.debezium.transforms.outbox.EventRouterConfigDefinition;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Debezium's outbox {@code EventRouter} for a router whose {@code route.topic.replacement} is a
 * topic name, with no group reference: the routed record gets that name without a regex replacement
 * per record.
 *
 * <p><b>Works around</b> (Debezium 3.6.1, Kafka Connect 4): the router hands every record it builds
 * to Kafka Connect's {@code RegexRouter}, which matches the route-by value against {@code
 * route.topic.regex}, then searches it again and expands the replacement character by character
 * ({@code Matcher.replaceFirst}), and copies the record and its headers once more. With a literal
 * replacement the outcome is known: the replacement when the value matches the regex, the value
 * itself otherwise. That work was about a third of the router's CPU in a drain and 4 % of the
 * relay's outside the JIT (docs/benchmarks-history.md, "The outbox router's topic replacement").
 * Here the router's own {@code RegexRouter} is given a regex that matches nothing, so it returns
 * the routed record as is, and the record is renamed here after one match of the configured regex:
 * the same topic as Debezium's, the record built once.
 *
 * <p>Every other setting goes to Debezium's router unchanged, and every record it does not route (a
 * heartbeat, anything outside the change-event envelope, a dropped delete) is returned as it
 * returns it. A replacement with {@code $} or {@code \} (a group reference, an escape) is refused:
 * the relay's routers always name their topic.
 *
 * <p><b>Would let it go</b>: a router that sets a fixed topic without a regex replacement, or a
 * {@code RegexRouter} that no longer shows in the profile; with {@code
 * relay.engine.debezium-patches=false} the relay runs Debezium's router.
 *
 * <p>Its own state is set once, by {@link #configure}; as thread-safe as Debezium's router.
 */
public final class FixedTopicEventRouter implements Transformation<SourceRecord> {

  static final String REGEX = EventRouterConfigDefinition.ROUTE_TOPIC_REGEX.name();
  static final String REPLACEMENT = EventRouterConfigDefinition.ROUTE_TOPIC_REPLACEMENT.name();

  /** A regex no topic matches: the router's {@code RegexRouter} then leaves its record alone. */
  private static final String MATCHES_NOTHING = "(?!)";

  private final EventRouter<SourceRecord> router = new EventRouter<>();
  private volatile Pattern routedBy;
  private volatile String topic;

  @Override
  public void configure(Map<String, ?> configs) {
    Object replacement = configs.get(REPLACEMENT);
    if (!(replacement instanceof String name) || name.isBlank()) {
      throw new ConfigException(REPLACEMENT, replacement, "must name the router's topic");
    }
    if (name.indexOf('$') >= 0 || name.indexOf('\\') >= 0) {
      throw new ConfigException(
          REPLACEMENT, name, "must be a topic name: no group reference ('$') or escape ('\\')");
    }
    Object regex = configs.get(REGEX);
    String routedByRegex =
        regex == null
            ? EventRouterConfigDefinition.ROUTE_TOPIC_REGEX.defaultValueAsString()
            : regex.toString();
    try {
      routedBy = Pattern.compile(routedByRegex);
    } catch (PatternSyntaxException e) {
      throw new ConfigException(REGEX, routedByRegex, e.getDescription());
    }
    topic = name;
    Map<String, Object> settings = new HashMap<>(configs);
    settings.put(REGEX, MATCHES_NOTHING);
    router.configure(settings);
  }

  @Override
  public SourceRecord apply(SourceRecord record) {
    SourceRecord routed = router.apply(record);
    // The router returns the record it was given when it does not route it, and null when it
    // drops it; a routed record is a new one, named after its route-by value.
    if (routed == null || routed == record || !routedBy.matcher(routed.topic()).matches()) {
      return routed;
    }
    return routed.newRecord(
        topic,
        routed.kafkaPartition(),
        routed.keySchema(),
        routed.key(),
        routed.valueSchema(),
        routed.value(),
        routed.timestamp(),
        routed.headers());
  }

  @Override
  public ConfigDef config() {
    return router.config();
  }

  @Override
  public void close() {
    router.close();
  }

  @Override
  public String toString() {
    return "FixedTopicEventRouter{" + topic + "}";
  }
}
