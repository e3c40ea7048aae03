package io.herald.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The raw text of a configuration: one {@code .properties} file plus environment overrides.
 *
 * <h2>Environment mapping</h2>
 *
 * <ul>
 *   <li>A declared key maps to {@code HERALD_} + the key in upper case with {@code .} and {@code -}
 *       replaced by {@code _}: {@code writer.db.jdbc-url} &lt;- {@code HERALD_WRITER_DB_JDBC_URL}.
 *       The environment wins over the file.
 *   <li>Group keys map the same way with the instance name in the middle: {@code
 *       consumer.destinations.dest-a.base-url} &lt;- {@code
 *       HERALD_CONSUMER_DESTINATIONS_DEST_A_BASE_URL}. An instance that exists only in the
 *       environment gets the lowercase name with {@code _} read as {@code -}.
 *   <li>A pass-through key maps from {@code HERALD_} + its prefix in upper case, and the rest of
 *       the variable name is lowercased with {@code _} read as {@code .}: {@code
 *       HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME} -&gt; {@code debezium.source.database.hostname}.
 *       <b>Limitation:</b> pass-through keys whose names contain {@code _}, {@code -} or upper-case
 *       letters cannot be set from the environment (the mapping cannot be reversed); set them in
 *       the file.
 *   <li>A {@code HERALD_} variable inside a namespace the process owns ({@code HERALD_WRITER_*} for
 *       the writer) that matches no key fails start-up like an unknown key in the file. Variables
 *       of other namespaces are ignored, so processes can share one environment.
 * </ul>
 *
 * <p>An empty value means "not set": an empty variable ({@code VAR=} in a compose file) leaves the
 * file value in force; an empty file value ({@code key=}) gives the default, reports a required key
 * missing, or leaves a pass-through key out. A key written twice in the file is an error
 * (last-one-wins hides mistakes).
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigSource {

  /** Prefix of every environment variable Herald reads. */
  public static final String ENV_PREFIX = "HERALD_";

  private final String origin;
  private final Map<String, String> properties;
  private final Map<String, String> environment;

  private ConfigSource(String origin, Map<String, String> properties, Map<String, String> env) {
    this.origin = origin;
    this.properties = Collections.unmodifiableMap(new TreeMap<>(properties));
    TreeMap<String, String> herald = new TreeMap<>();
    env.forEach(
        (name, value) -> {
          if (name.startsWith(ENV_PREFIX)) {
            herald.put(name, value);
          }
        });
    this.environment = Collections.unmodifiableMap(herald);
  }

  /**
   * Reads {@code file} (UTF-8) and keeps the {@code HERALD_*} entries of {@code env} (pass {@code
   * System.getenv()} in production, a map in tests).
   *
   * @throws ConfigException if the file is missing, unreadable or defines a key twice
   */
  public static ConfigSource load(Path file, Map<String, String> env) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(env, "env");
    DuplicateRejectingProperties props = new DuplicateRejectingProperties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(reader);
    } catch (NoSuchFileException e) {
      throw new ConfigException("configuration file not found: " + file.toAbsolutePath());
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException(
          "cannot read configuration file " + file.toAbsolutePath() + ": " + e.getMessage());
    }
    if (!props.duplicates.isEmpty()) {
      throw new ConfigException(
          props.duplicates.stream()
              .map(key -> key + ": defined more than once in " + file.toAbsolutePath())
              .toList());
    }
    TreeMap<String, String> values = new TreeMap<>();
    props
        .stringPropertyNames()
        .forEach(key -> values.put(key.strip(), props.getProperty(key).strip()));
    return new ConfigSource(file.toAbsolutePath().toString(), values, env);
  }

  /** A source from in-memory properties (tests, embedding). */
  public static ConfigSource of(Map<String, String> properties, Map<String, String> env) {
    TreeMap<String, String> values = new TreeMap<>();
    properties.forEach((k, v) -> values.put(k.strip(), v.strip()));
    return new ConfigSource("(in memory)", values, env);
  }

  /** The file name, for messages. */
  public String origin() {
    return origin;
  }

  /** The file's keys and trimmed values, sorted by key. */
  public Map<String, String> properties() {
    return properties;
  }

  /** The {@code HERALD_*} environment variables, sorted by name. */
  public Map<String, String> environment() {
    return environment;
  }

  /** The environment variable that overrides {@code key}. */
  public static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** {@link Properties} that remembers keys it was given twice (it would keep the last). */
  private static final class DuplicateRejectingProperties extends Properties {
    private static final long serialVersionUID = 1L;
    private final transient List<String> duplicates = new ArrayList<>();

    @Override
    public synchronized Object put(Object key, Object value) {
      if (containsKey(key)) {
        duplicates.add(String.valueOf(key));
      }
      return super.put(key, value);
    }
  }
}
