package io.herald.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

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
  private final Pattern keyLike;

  private ConfigDef(Builder builder) {
    this.process = builder.process;
    this.keys = List.copyOf(builder.keys);
    this.groups = List.copyOf(builder.groups);
    this.passThrough =
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(builder.passThrough));
    this.keyLike = keyLike(namespaces());
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
   * The names in {@code message} that look like keys of this process but are not defined. A name
   * looks like a key when it is a word starting with one of the process's namespaces (the first
   * segment of its keys, groups and pass-through prefixes: {@code consumer.}, {@code kafka.}); it
   * is defined when it is a plain key, a group member of any instance ({@code
   * consumer.destinations.<name>.base-url} and {@code .<name>.*} too), a pass-through prefix or a
   * name under one ({@code kafka.consumer.group.id}, {@code kafka.consumer.*}). An error message
   * that sends its reader to a key that does not exist is worse than none: each process's config
   * test builds bad configurations and checks every message with this.
   */
  public List<String> undefinedKeysIn(String message) {
    return keyLike
        .matcher(message)
        .results()
        .map(MatchResult::group)
        .filter(name -> !defines(name))
        .toList();
  }

  /** Whether {@code name} is a key of this process (see {@link #undefinedKeysIn}). */
  public boolean defines(String name) {
    if (keys.stream().anyMatch(k -> k.name().equals(name))) {
      return true;
    }
    for (ConfigGroup group : groups) {
      String start = group.prefix() + ".";
      int memberStart = name.indexOf('.', start.length());
      if (name.startsWith(start) && memberStart > start.length()) {
        String member = name.substring(memberStart + 1);
        if (member.equals("*") || group.find(member).isPresent()) {
          return true;
        }
      }
    }
    return passThrough.keySet().stream()
        .anyMatch(prefix -> name.startsWith(prefix) || prefix.equals(name + "."));
  }

  private Set<String> namespaces() {
    Set<String> namespaces = new TreeSet<>();
    keys.forEach(k -> namespaces.add(firstSegment(k.name())));
    groups.forEach(g -> namespaces.add(firstSegment(g.prefix())));
    passThrough.keySet().forEach(p -> namespaces.add(firstSegment(p)));
    return namespaces;
  }

  private static String firstSegment(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? name : name.substring(0, dot);
  }

  /**
   * A word (not inside another word, a URL, or a value after {@code =} or {@code '}) of key
   * characters, starting with a namespace and its dot, ending in a character a key can end with
   * (not a sentence's full stop).
   */
  private static Pattern keyLike(Set<String> namespaces) {
    StringBuilder alternatives = new StringBuilder();
    for (String namespace : namespaces) {
      alternatives.append(alternatives.isEmpty() ? "" : "|").append(Pattern.quote(namespace));
    }
    return Pattern.compile(
        "(?<![A-Za-z0-9_.<>*/:='-])(?:" + alternatives + ")\\.[A-Za-z0-9_.<>*-]*[A-Za-z0-9_>*]");
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
