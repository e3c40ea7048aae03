package io.herald.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads a {@link ConfigSource} against a {@link ConfigDef}: resolves environment overrides, parses
 * and validates every declared key, collects pass-through prefixes and group instances, and rejects
 * unknown keys. All problems are gathered and thrown together in one {@link ConfigException}.
 * Stateless; see {@link ConfigSource} for the environment mapping.
 */
public final class ConfigReader {

  private static final Pattern INSTANCE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");
  static final String MASK = "****";

  private final ConfigDef def;
  private final ConfigSource source;
  private final List<String> problems = new ArrayList<>();
  private final Set<String> usedFileKeys = new HashSet<>();
  private final Set<String> usedEnv = new HashSet<>();

  private ConfigReader(ConfigDef def, ConfigSource source) {
    this.def = def;
    this.source = source;
  }

  /**
   * Reads {@code source}.
   *
   * @throws ConfigException naming every unknown key, missing required key and bad value
   */
  public static ConfigValues read(ConfigDef def, ConfigSource source) {
    return new ConfigReader(def, source).read();
  }

  private ConfigValues read() {
    Map<String, ConfigValues.Value> values = readKeys(def.keys(), ConfigKey::name);
    Map<String, Map<String, ConfigValues>> groups = new LinkedHashMap<>();
    for (ConfigGroup group : def.groups()) {
      groups.put(group.prefix(), readGroup(group));
    }
    Map<String, Map<String, ConfigValues.Value>> passThrough = readPassThrough();
    reportUnknownFileKeys();
    reportUnknownEnv();
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return new ConfigValues(def.process(), source.origin(), "", values, groups, passThrough);
  }

  private Map<String, ConfigValues.Value> readKeys(
      List<ConfigKey<?>> keys, java.util.function.Function<ConfigKey<?>, String> fullName) {
    Map<String, ConfigValues.Value> values = new LinkedHashMap<>();
    for (ConfigKey<?> key : keys) {
      String name = fullName.apply(key);
      String env = ConfigSource.envName(name);
      String raw;
      String origin;
      if (source.environment().containsKey(env)) {
        usedEnv.add(env);
      }
      // An empty variable (VAR= in a compose file) means "not set": the file value still applies.
      if (!source.environment().getOrDefault(env, "").isBlank()) {
        raw = source.environment().get(env).strip();
        origin = "env " + env;
      } else {
        raw = source.properties().get(name);
        origin = "file";
      }
      if (source.properties().containsKey(name)) {
        usedFileKeys.add(name);
      }
      values.put(name, parse(key, name, raw, origin));
    }
    return values;
  }

  private <T> ConfigValues.Value parse(ConfigKey<T> key, String name, String raw, String origin) {
    if (raw == null || raw.isEmpty()) {
      if (key.required()) {
        problems.add(name + ": required key is missing (" + key.doc() + ")");
      }
      return value(key, key.defaultValue(), "default");
    }
    String shown = key.secretValue() ? MASK : "'" + EffectiveConfig.maskEmbedded(raw) + "'";
    T value;
    try {
      value = key.type().parse(raw);
    } catch (IllegalArgumentException e) {
      problems.add(name + ": invalid value " + shown + " (" + origin + "): " + e.getMessage());
      return value(key, null, origin);
    }
    if (!key.validator().test(value)) {
      problems.add(
          name + ": invalid value " + shown + " (" + origin + "): " + key.validator().rule());
    }
    return value(key, value, origin);
  }

  private static <T> ConfigValues.Value value(ConfigKey<T> key, T value, String origin) {
    return new ConfigValues.Value(
        value, value == null ? "" : key.type().render(value), origin, key.secretValue());
  }

  private Map<String, ConfigValues> readGroup(ConfigGroup group) {
    String filePrefix = group.prefix() + ".";
    Set<String> instances = new TreeSet<>();
    for (String key : source.properties().keySet()) {
      if (!key.startsWith(filePrefix)) {
        continue;
      }
      String rest = key.substring(filePrefix.length());
      int dot = rest.indexOf('.');
      if (dot <= 0) {
        continue; // reported as unknown
      }
      String instance = rest.substring(0, dot);
      String member = rest.substring(dot + 1);
      if (group.find(member).isEmpty()) {
        continue; // reported as unknown
      }
      if (!INSTANCE.matcher(instance).matches()) {
        problems.add(
            key + ": instance name '" + instance + "' must be letters, digits, '_' or '-'");
        usedFileKeys.add(key);
        continue;
      }
      instances.add(instance);
    }
    // Instances named only in the environment: HERALD_<PREFIX>_<INSTANCE>_<MEMBER>.
    String envPrefix = ConfigSource.envName(group.prefix()) + "_";
    for (String env : source.environment().keySet()) {
      if (!env.startsWith(envPrefix)) {
        continue;
      }
      String rest = env.substring(envPrefix.length());
      group.keys().stream()
          .map(k -> ConfigSource.envName(k.name()).substring(ConfigSource.ENV_PREFIX.length()))
          .filter(suffix -> rest.endsWith("_" + suffix) && rest.length() > suffix.length() + 1)
          .max(Comparator.comparingInt(String::length))
          .map(suffix -> rest.substring(0, rest.length() - suffix.length() - 1))
          .filter(envInstance -> instances.stream().noneMatch(i -> sameEnvName(i, envInstance)))
          .ifPresent(
              envInstance -> instances.add(envInstance.toLowerCase(Locale.ROOT).replace('_', '-')));
    }
    Map<String, ConfigValues> result = new LinkedHashMap<>();
    for (String instance : instances) {
      Map<String, ConfigValues.Value> values =
          readKeys(group.keys(), key -> group.fullName(instance, key));
      result.put(
          instance,
          new ConfigValues(
              def.process(),
              source.origin(),
              group.prefix() + "." + instance + ".",
              values,
              Map.of(),
              Map.of()));
    }
    return result;
  }

  private static boolean sameEnvName(String instance, String envInstance) {
    return ConfigSource.envName(instance).equals(ConfigSource.ENV_PREFIX + envInstance);
  }

  private Map<String, Map<String, ConfigValues.Value>> readPassThrough() {
    Map<String, Map<String, ConfigValues.Value>> result = new LinkedHashMap<>();
    def.passThroughPrefixes().keySet().forEach(prefix -> result.put(prefix, new TreeMap<>()));
    for (Map.Entry<String, String> entry : source.properties().entrySet()) {
      if (usedFileKeys.contains(entry.getKey())) {
        continue;
      }
      longestPrefix(entry.getKey())
          .ifPresent(
              prefix -> {
                usedFileKeys.add(entry.getKey());
                if (entry.getValue().isEmpty()) {
                  return; // empty means not set: the component's own default applies
                }
                String name = entry.getKey().substring(prefix.length());
                result
                    .get(prefix)
                    .put(name, passThroughValue(entry.getKey(), entry.getValue(), "file"));
              });
    }
    for (Map.Entry<String, String> entry : source.environment().entrySet()) {
      String env = entry.getKey();
      if (usedEnv.contains(env)) {
        continue;
      }
      for (String prefix : def.passThroughPrefixes().keySet()) {
        String envPrefix = ConfigSource.envName(prefix.substring(0, prefix.length() - 1)) + "_";
        if (env.startsWith(envPrefix) && env.length() > envPrefix.length()) {
          String key =
              prefix + env.substring(envPrefix.length()).toLowerCase(Locale.ROOT).replace('_', '.');
          // A longer prefix (debezium.sink.kafka.producer. inside debezium.sink.) owns the key.
          if (longestPrefix(key).orElseThrow().equals(prefix)) {
            usedEnv.add(env);
            if (entry.getValue().isBlank()) {
              continue; // empty means not set: the file value, if any, applies
            }
            result
                .get(prefix)
                .put(
                    key.substring(prefix.length()),
                    passThroughValue(key, entry.getValue().strip(), "env " + env));
          }
        }
      }
    }
    return result;
  }

  private static ConfigValues.Value passThroughValue(String fullKey, String value, String origin) {
    return new ConfigValues.Value(value, value, origin, EffectiveConfig.looksSecret(fullKey));
  }

  private Optional<String> longestPrefix(String key) {
    return def.passThroughPrefixes().keySet().stream()
        .filter(key::startsWith)
        .filter(prefix -> key.length() > prefix.length())
        .max(Comparator.comparingInt(String::length));
  }

  private void reportUnknownFileKeys() {
    for (String key : source.properties().keySet()) {
      if (!usedFileKeys.contains(key)) {
        problems.add(key + ": unknown key in " + source.origin() + suggestion(key, knownNames()));
      }
    }
  }

  private void reportUnknownEnv() {
    Set<String> namespaces = new TreeSet<>();
    def.keys().forEach(k -> namespaces.add(firstSegment(k.name())));
    def.groups().forEach(g -> namespaces.add(firstSegment(g.prefix())));
    def.passThroughPrefixes().keySet().forEach(p -> namespaces.add(firstSegment(p)));
    for (String env : source.environment().keySet()) {
      if (usedEnv.contains(env)) {
        continue;
      }
      boolean owned =
          namespaces.stream().anyMatch(ns -> env.startsWith(ConfigSource.envName(ns) + "_"));
      if (owned) {
        List<String> knownEnv = knownNames().stream().map(ConfigSource::envName).toList();
        problems.add(
            env
                + ": environment variable matches no "
                + def.process()
                + " key"
                + suggestion(env, knownEnv));
      }
    }
  }

  private List<String> knownNames() {
    List<String> names = new ArrayList<>();
    def.keys().forEach(k -> names.add(k.name()));
    def.groups().forEach(g -> g.keys().forEach(k -> names.add(g.prefix() + ".<name>." + k.name())));
    names.addAll(def.passThroughPrefixes().keySet());
    return names;
  }

  private static String firstSegment(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? name : name.substring(0, dot);
  }

  /** "; did you mean x?" when a known name is a few edits away (typos), else "". */
  static String suggestion(String unknown, List<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : known) {
      int distance = distance(unknown, candidate);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int allowed = Math.max(2, unknown.length() / 5);
    return best != null && bestDistance <= allowed ? "; did you mean " + best + "?" : "";
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
