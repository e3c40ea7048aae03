package io.herald.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The parsed, validated values of one configuration: typed values of declared keys, the instances
 * of each key group, and the pass-through maps. Immutable and thread-safe. Produced by {@link
 * ConfigReader}; the per-process config classes wrap it.
 */
public final class ConfigValues {

  /** One resolved value: parsed object, its text as a property file would hold it, its origin. */
  record Value(Object value, String text, String origin, boolean secret) {}

  private final String process;
  private final String origin;
  private final String prefix;
  private final Map<String, Value> values;
  private final Map<String, Map<String, ConfigValues>> groups;
  private final Map<String, Map<String, Value>> passThrough;

  ConfigValues(
      String process,
      String origin,
      String prefix,
      Map<String, Value> values,
      Map<String, Map<String, ConfigValues>> groups,
      Map<String, Map<String, Value>> passThrough) {
    this.process = process;
    this.origin = origin;
    this.prefix = prefix;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    Map<String, Map<String, ConfigValues>> groupCopy = new LinkedHashMap<>();
    groups.forEach((k, v) -> groupCopy.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
    this.groups = Collections.unmodifiableMap(groupCopy);
    Map<String, Map<String, Value>> passCopy = new LinkedHashMap<>();
    passThrough.forEach((k, v) -> passCopy.put(k, Collections.unmodifiableMap(new TreeMap<>(v))));
    this.passThrough = Collections.unmodifiableMap(passCopy);
  }

  /**
   * The value of {@code key}: the set value, else its default; null only for an optional key
   * without default that is not set.
   *
   * @throws IllegalArgumentException if {@code key} is not part of this configuration
   */
  public <T> T get(ConfigKey<T> key) {
    Value value = values.get(prefix + key.name());
    if (value == null) {
      throw new IllegalArgumentException(
          "key " + prefix + key.name() + " is not defined for " + process);
    }
    @SuppressWarnings("unchecked")
    T typed = (T) value.value();
    return typed;
  }

  /** The value of {@code key} when it has one. */
  public <T> Optional<T> find(ConfigKey<T> key) {
    return Optional.ofNullable(get(key));
  }

  /** Whether {@code key} was set (file or environment), as opposed to defaulted. */
  public boolean isSet(ConfigKey<?> key) {
    get(key);
    return !values.get(prefix + key.name()).origin().equals("default");
  }

  /**
   * Where the value of {@code key} came from: {@code default}, {@code file} or {@code env NAME}.
   */
  public String origin(ConfigKey<?> key) {
    get(key);
    return values.get(prefix + key.name()).origin();
  }

  /** The full name of {@code key} here ({@code consumer.destinations.dest-a.base-url}). */
  public String fullName(ConfigKey<?> key) {
    return prefix + key.name();
  }

  /**
   * The instances of {@code group}, by instance name (sorted), each holding its member keys.
   *
   * @throws IllegalArgumentException if the group is not part of this configuration
   */
  public Map<String, ConfigValues> group(ConfigGroup group) {
    Map<String, ConfigValues> instances = groups.get(group.prefix());
    if (instances == null) {
      throw new IllegalArgumentException(
          "group " + group.prefix() + " is not defined for " + process);
    }
    return instances;
  }

  /**
   * The keys under a pass-through {@code prefix}, with the prefix stripped, sorted; for handing to
   * the third-party component (Debezium, a Kafka client). Contains secrets in clear text: never log
   * it, log {@link #effective()} instead.
   *
   * @throws IllegalArgumentException if the prefix is not declared
   */
  public Map<String, String> passThrough(String prefix) {
    Map<String, Value> map = passThrough.get(prefix);
    if (map == null) {
      throw new IllegalArgumentException(
          "pass-through prefix " + prefix + " is not defined for " + process);
    }
    Map<String, String> result = new TreeMap<>();
    map.forEach((k, v) -> result.put(k, v.text()));
    return Collections.unmodifiableMap(result);
  }

  /** The configuration as it should be logged at start-up, secrets masked. */
  public EffectiveConfig effective() {
    Map<String, Value> all = new TreeMap<>();
    collect(all);
    return new EffectiveConfig(process, origin, List.copyOf(all.entrySet()));
  }

  private void collect(Map<String, Value> all) {
    all.putAll(values);
    groups.values().forEach(instances -> instances.values().forEach(v -> v.collect(all)));
    passThrough.forEach((p, map) -> map.forEach((k, v) -> all.put(p + k, v)));
  }
}
