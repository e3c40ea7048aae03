package io.herald.config;

/**
 * What every process configuration ({@code WriterConfig}, {@code RelayConfig}, {@code
 * ConsumerConfig}) has in common: the parsed {@link ConfigValues} behind it and the effective
 * configuration for the start-up log. A subclass adds its keys, the records it builds from them for
 * its components, and its cross-field checks, plus its own static {@code load}, {@code from} and
 * {@code definition} (static factories cannot be inherited with the subclass's type).
 *
 * <p>Immutable and thread-safe when the subclass is (all Herald configs are).
 */
public abstract class ProcessConfig {

  private final ConfigValues values;

  protected ProcessConfig(ConfigValues values) {
    this.values = java.util.Objects.requireNonNull(values, "values");
  }

  /** The parsed values behind this config. */
  public final ConfigValues values() {
    return values;
  }

  /** The effective configuration for the start-up log, secrets masked. */
  public final EffectiveConfig effective() {
    return values.effective();
  }

  /** The effective configuration, secrets masked: safe to log. */
  @Override
  public final String toString() {
    return effective().render();
  }
}
