package io.herald.devstack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigGroup;
import io.herald.config.ConfigKey;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The property file a process ships in {@code connect-config/}, for the config tests of writer,
 * relay and consumer: its path, its properties, the logging config beside it, and the checks that
 * it and {@code docs/configuration.md} document every key of the process's {@link ConfigDef}.
 *
 * <pre>{@code
 * ShippedConfig shipped = ShippedConfig.of("writer");
 * WriterConfig config = WriterConfig.load(shipped.file(), Map.of());
 * shipped.assertDocsTableMatches(WriterConfig.definition());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ShippedConfig {

  private final String process;
  private final Path root;

  private ShippedConfig(String process, Path root) {
    this.process = process;
    this.root = root;
  }

  /**
   * The shipped configuration of {@code process} ({@code connect-config/<process>.properties}),
   * found from the working directory upwards (a module directory or the repository root).
   *
   * @throws IllegalStateException if no {@code connect-config/} directory is above
   */
  public static ShippedConfig of(String process) {
    return new ShippedConfig(process, directory().getParent());
  }

  /**
   * The checkout's {@code connect-config/}: in the first directory from the working directory
   * upwards that has one.
   *
   * @throws IllegalStateException if no {@code connect-config/} directory is above
   */
  public static Path directory() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("connect-config"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "connect-config/ not found above " + Path.of("").toAbsolutePath());
    }
    return dir.resolve("connect-config");
  }

  /** {@code connect-config/<process>.properties}. */
  public Path file() {
    return root.resolve("connect-config/" + process + ".properties");
  }

  /**
   * {@code connect-config/logback-<process>.xml}: the logging config the process's launcher passes
   * with {@code -Dlogback.configurationFile} (no jar ships one).
   */
  public Path logbackFile() {
    return root.resolve("connect-config/logback-" + process + ".xml");
  }

  /**
   * The {@code JAVA_OPTS} that {@code docker-compose.yml} gives the process's service (the service
   * named as the process), split on spaces; empty if it sets none.
   */
  public List<String> composeJavaOpts() throws IOException {
    List<String> lines = Files.readAllLines(root.resolve("docker-compose.yml"));
    boolean inService = false;
    for (String line : lines) {
      // A service is a key indented by two spaces under services:; its settings are deeper.
      if (line.startsWith("  ") && !line.startsWith("   ") && line.strip().endsWith(":")) {
        inService = line.strip().equals(process + ":");
      } else if (inService && line.strip().startsWith("JAVA_OPTS:")) {
        return List.of(line.strip().substring("JAVA_OPTS:".length()).strip().split(" +"));
      }
    }
    return List.of();
  }

  /** The shipped properties, as a mutable map a test may change before parsing it. */
  public Map<String, String> properties() {
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(file())) {
      props.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file(), e);
    }
    Map<String, String> map = new HashMap<>();
    props.stringPropertyNames().forEach(k -> map.put(k, props.getProperty(k)));
    return map;
  }

  /**
   * Asserts that the shipped file mentions every key of {@code definition}, which has no groups.
   */
  public void assertDocumentsEveryKey(ConfigDef definition) throws IOException {
    if (!definition.groups().isEmpty()) {
      throw new IllegalArgumentException(
          definition.process() + " has key groups: name an instance the shipped file configures");
    }
    assertDocumentsEveryKey(definition, "");
  }

  /**
   * Asserts that the shipped file mentions every plain key of {@code definition}, and every member
   * of each group as {@code .<instance>.<member>} for {@code groupInstance} (an instance the file
   * configures).
   */
  public void assertDocumentsEveryKey(ConfigDef definition, String groupInstance)
      throws IOException {
    String text = Files.readString(file());
    for (ConfigKey<?> key : definition.keys()) {
      assertTrue(text.contains(key.name()), key.name() + " is not in " + file());
    }
    for (ConfigGroup group : definition.groups()) {
      for (ConfigKey<?> key : group.keys()) {
        String member = "." + groupInstance + "." + key.name();
        assertTrue(text.contains(member), key.name() + " is not in " + file());
      }
    }
  }

  /**
   * Asserts that {@code docs/configuration.md} holds {@link ConfigDef#markdownTable()} between
   * {@code <!-- BEGIN process -->} and {@code <!-- END process -->}. With {@code
   * -Dherald.docs.write=true} it rewrites that section instead.
   */
  public void assertDocsTableMatches(ConfigDef definition) throws IOException {
    Path doc = root.resolve("docs/configuration.md");
    String text = Files.readString(doc);
    String begin = "<!-- BEGIN " + process + " -->\n";
    String end = "<!-- END " + process + " -->";
    int from = text.indexOf(begin) + begin.length();
    int to = text.indexOf(end);
    String expected = definition.markdownTable();
    if (Boolean.getBoolean("herald.docs.write")) {
      Files.writeString(doc, text.substring(0, from) + expected + text.substring(to));
      return;
    }
    assertEquals(
        expected,
        text.substring(from, to),
        "docs/configuration.md is out of date; rerun with -Dherald.docs.write=true");
  }
}
