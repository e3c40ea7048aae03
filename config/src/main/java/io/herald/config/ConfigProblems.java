package io.herald.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Collects the contradictions a process configuration finds between its keys, so start-up fails
 * once naming all of them ({@link #throwIfAny()}), each message naming the keys and their values:
 * {@code dispatch.backoff-base=10m is longer than dispatch.backoff-max=5m}. Not thread-safe: one
 * instance per validation.
 */
public final class ConfigProblems {

  private final List<String> problems = new ArrayList<>();

  /** {@code key=value}, the way a contradiction names a setting. */
  public static String assignment(String key, Object value) {
    return key + "=" + value;
  }

  /** Records a problem stated in full. */
  public ConfigProblems add(String problem) {
    problems.add(problem);
    return this;
  }

  /**
   * Records {@code key=value <relation> otherKey=otherValue}, followed by {@code ": " +
   * consequence} unless {@code consequence} is null.
   */
  public ConfigProblems contradiction(
      String key,
      Object value,
      String relation,
      String otherKey,
      Object otherValue,
      String consequence) {
    String problem =
        assignment(key, value) + " " + relation + " " + assignment(otherKey, otherValue);
    return add(consequence == null ? problem : problem + ": " + consequence);
  }

  /**
   * Records a contradiction when a pass-through setting repeats a Herald key with another value
   * ({@code kafka.consumer.group.id=x contradicts consumer.kafka.group-id=y: advice}); agreeing or
   * absent settings are fine.
   *
   * @param prefix the pass-through prefix ({@code kafka.consumer.})
   * @param passThrough the settings under {@code prefix}, prefix stripped
   * @param name the third-party setting ({@code group.id})
   */
  public ConfigProblems passThroughAgrees(
      String prefix,
      Map<String, String> passThrough,
      String name,
      ConfigKey<?> key,
      String value,
      String advice) {
    String passed = passThrough.get(name);
    if (passed != null && !passed.equals(value)) {
      contradiction(prefix + name, passed, "contradicts", key.name(), value, advice);
    }
    return this;
  }

  /**
   * Refuses a pass-through setting that Herald sets itself, whatever its value ({@code
   * kafka.consumer.enable.auto.commit=true is set by Herald: reason}). The one pass-through policy
   * of every process: a guarantee never rests on a setting a user can quietly override, and a
   * setting Herald has a key for is stated once, under that key.
   *
   * @param prefix the pass-through prefix ({@code kafka.consumer.})
   * @param passThrough the settings under {@code prefix}, prefix stripped
   * @param name the third-party setting ({@code enable.auto.commit})
   * @param reason why Herald owns it, or which key sets it instead
   */
  public ConfigProblems ownedByHerald(
      String prefix, Map<String, String> passThrough, String name, String reason) {
    String passed = passThrough.get(name);
    if (passed != null) {
      add(assignment(prefix + name, passed) + " is set by Herald: " + reason);
    }
    return this;
  }

  /**
   * @throws ConfigException naming every recorded problem, if there is any
   */
  public void throwIfAny() {
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }
}
