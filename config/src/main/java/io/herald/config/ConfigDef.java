package io.herald.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every key one process understands: plain keys, key groups and pass-through prefixes. Built once
 * in a static initializer; immutable and thread-safe after {@link Builder#build()}.
 *
 * <pre>{@code
 * private static final ConfigDef.Builder KEYS = ConfigDef.builder("writer");
 * public static final ConfigKey<Integer> HTTP_PORT =
 *     KEYS.define(ConfigKey.optional("writer.http.port", ConfigType.INT, 8080, "API port."));
 * private static final ConfigDef DEF = KEYS.build(); // after the last define
 * }</pre>
 */
public final class ConfigDef {

  private final String process;
  private final List<ConfigKey<?>> keys;
  private final List<ConfigGroup> groups;
  private final Map<String, String> passThrough;

  private ConfigDef(Builder builder) {
    this.process = builder.process;
    this.keys = List.copyOf(builder.keys);
    this.groups = List.copyOf(builder.groups);
    this.passThrough =
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(builder.passThrough));
  }

  /** A builder for the keys of {@code process} (used in messages). */
  public static Builder builder(String process) {
    return new Builder(process);
  }

  /** Reads and validates {@code source} against this definition. */
  public ConfigValues read(ConfigSource source) {
    return ConfigReader.read(this, source);
  }

  public String process() {
    return process;
  }

  /** Plain keys in definition order. */
  public List<ConfigKey<?>> keys() {
    return keys;
  }

  public List<ConfigGroup> groups() {
    return groups;
  }

  /** Pass-through prefixes (ending with {@code .}) and their documentation. */
  public Map<String, String> passThroughPrefixes() {
    return passThrough;
  }

  /**
   * A Markdown table of every key (name, type, default, meaning) for the README: generated from the
   * definitions, so the table cannot drift from the code.
   */
  public String markdownTable() {
    StringBuilder out =
        new StringBuilder("| key | type | default | meaning |\n| --- | --- | --- | --- |\n");
    for (ConfigKey<?> key : keys) {
      row(out, key.name(), key);
    }
    for (ConfigGroup group : groups) {
      for (ConfigKey<?> key : group.keys()) {
        row(out, group.prefix() + ".<name>." + key.name(), key);
      }
    }
    passThrough.forEach(
        (prefix, doc) ->
            out.append("| `")
                .append(prefix)
                .append("*` | pass-through | | ")
                .append(doc)
                .append(" |\n"));
    return out.toString();
  }

  private static void row(StringBuilder out, String name, ConfigKey<?> key) {
    out.append("| `")
        .append(name)
        .append("` | ")
        .append(key.type().name().replace("|", "\\|"))
        .append(" | ")
        .append(key.required() ? "(required)" : key.secretValue() ? "" : key.renderedDefault())
        .append(" | ")
        .append(key.doc().replace("|", "\\|"))
        .append(" |\n");
  }

  /** Collects definitions; not thread-safe (use from one static initializer). */
  public static final class Builder {

    private final String process;
    private final List<ConfigKey<?>> keys = new ArrayList<>();
    private final List<ConfigGroup> groups = new ArrayList<>();
    private final Map<String, String> passThrough = new LinkedHashMap<>();
    private boolean built;

    private Builder(String process) {
      this.process = Objects.requireNonNull(process);
    }

    /** Adds a plain key and returns it. */
    public <T> ConfigKey<T> define(ConfigKey<T> key) {
      checkOpen(key.name());
      if (keys.stream().anyMatch(k -> k.name().equals(key.name()))) {
        throw new IllegalArgumentException("duplicate key " + key.name());
      }
      keys.add(key);
      return key;
    }

    /** Adds a key group ({@code prefix.<name>.<member>}); define members on the result. */
    public ConfigGroup group(String prefix, String doc) {
      checkOpen(prefix);
      ConfigGroup group = new ConfigGroup(prefix, doc);
      groups.add(group);
      return group;
    }

    /**
     * Adds a pass-through prefix (must end with {@code .}): keys under it are collected, with the
     * prefix stripped, for a third-party component that validates them itself.
     */
    public String passThrough(String prefix, String doc) {
      checkOpen(prefix);
      if (!prefix.endsWith(".")) {
        throw new IllegalArgumentException("pass-through prefix must end with '.': " + prefix);
      }
      passThrough.put(prefix, doc);
      return prefix;
    }

    /** The definition. Defining anything afterwards fails, so a misplaced key is caught at once. */
    public ConfigDef build() {
      built = true;
      groups.forEach(ConfigGroup::freeze);
      return new ConfigDef(this);
    }

    private void checkOpen(String name) {
      if (built) {
        throw new IllegalStateException(
            name + " defined after the ConfigDef of " + process + " was built");
      }
    }
  }
}
