package io.herald.config;

import java.util.List;

/**
 * A configuration that cannot start a process: unknown key, missing required key, bad value or
 * contradiction. The message names every offending key and (unless the key is secret) its value, so
 * one start-up attempt shows everything that must be fixed.
 */
public final class ConfigException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /** One problem. */
  public ConfigException(String problem) {
    this(List.of(problem));
  }

  /** Several problems, reported together. */
  public ConfigException(List<String> problems) {
    super(format(problems));
    this.problems = List.copyOf(problems);
  }

  /** Each problem on its own, as it appears in the message. */
  public List<String> problems() {
    return problems;
  }

  private static String format(List<String> problems) {
    if (problems.size() == 1) {
      return "Invalid configuration: " + problems.get(0);
    }
    return "Invalid configuration ("
        + problems.size()
        + " problems):\n  - "
        + String.join("\n  - ", problems);
  }
}
