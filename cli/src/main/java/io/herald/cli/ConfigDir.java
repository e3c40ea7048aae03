package io.herald.cli;

import io.herald.config.ConfigException;
import io.herald.consumer.config.ConsumerConfig;
import io.herald.relay.config.RelayConfig;
import io.herald.writer.config.WriterConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The processes' configuration as the command reads it: {@code <dir>/writer.properties}, {@code
 * <dir>/consumer.properties} and {@code <dir>/relay.properties} plus the {@code HERALD_*}
 * environment, parsed and validated by the processes' own config classes, so that the command sees
 * what the process would run with and reports a bad file with the same message. Immutable and
 * thread-safe.
 */
public final class ConfigDir {

  /** The default of {@code --config-dir}: the shipped files, from a checkout's root. */
  public static final String DEFAULT = "connect-config";

  private final Path dir;
  private final Map<String, String> env;

  public ConfigDir(Path dir, Map<String, String> env) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
  }

  /**
   * {@code consumer.properties}, validated.
   *
   * @throws ConfigException if the file is missing or invalid ({@link Herald} exits 2)
   */
  public ConsumerConfig consumer() {
    return ConsumerConfig.load(dir.resolve("consumer.properties"), env);
  }

  /**
   * {@code writer.properties}, validated.
   *
   * @throws ConfigException if the file is missing or invalid ({@link Herald} exits 2)
   */
  public WriterConfig writer() {
    return WriterConfig.load(dir.resolve("writer.properties"), env);
  }

  /**
   * {@code relay.properties}, validated.
   *
   * @throws ConfigException if the file is missing or invalid ({@link Herald} exits 2)
   */
  public RelayConfig relay() {
    return RelayConfig.load(dir.resolve("relay.properties"), env);
  }

  /** The environment the command runs in ({@code System.getenv()} in production). */
  public Map<String, String> env() {
    return env;
  }

  public Path path() {
    return dir;
  }
}
