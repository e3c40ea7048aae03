package io.herald.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One configuration key, defined once: name, type, default (or required), validator, doc and
 * whether its value is secret. Immutable and thread-safe; the {@code with...}/{@code secret()}
 * methods return copies.
 *
 * <pre>{@code
 * static final ConfigKey<Integer> PORT =
 *     ConfigKey.optional("writer.http.port", ConfigType.INT, 8080, "HTTP port of the API.")
 *         .validatedBy(Validator.port());
 * }</pre>
 *
 * <p>Keys inside a {@link ConfigGroup} have names relative to the group instance ({@code
 * base-url}); all others have full names ({@code writer.http.port}).
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {

  private static final Pattern NAME = Pattern.compile("[a-z0-9]+([.-][a-z0-9]+)*");

  private final String name;
  private final ConfigType<T> type;
  private final T defaultValue;
  private final boolean required;
  private final Validator<? super T> validator;
  private final String doc;
  private final boolean secret;

  private ConfigKey(
      String name,
      ConfigType<T> type,
      T defaultValue,
      boolean required,
      Validator<? super T> validator,
      String doc,
      boolean secret) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "config key names are lowercase words joined by '.' or '-': " + name);
    }
    this.name = name;
    this.type = Objects.requireNonNull(type, "type");
    this.defaultValue = defaultValue;
    this.required = required;
    this.validator = Objects.requireNonNull(validator, "validator");
    this.doc = Objects.requireNonNull(doc, "doc");
    this.secret = secret;
  }

  /** A key that must be set. */
  public static <T> ConfigKey<T> required(String name, ConfigType<T> type, String doc) {
    return new ConfigKey<>(name, type, null, true, Validator.any(), doc, false);
  }

  /**
   * A key with a default. A {@code null} default makes the key optional with no value: {@link
   * ConfigValues#get} returns null and {@link ConfigValues#find} is empty when it is not set.
   */
  public static <T> ConfigKey<T> optional(
      String name, ConfigType<T> type, T defaultValue, String doc) {
    return new ConfigKey<>(name, type, defaultValue, false, Validator.any(), doc, false);
  }

  /** This key with a validator (applied to set values and to the default). */
  public ConfigKey<T> validatedBy(Validator<? super T> validator) {
    ConfigKey<T> key = new ConfigKey<>(name, type, defaultValue, required, validator, doc, secret);
    if (defaultValue != null && !validator.test(defaultValue)) {
      throw new IllegalArgumentException(
          "default of " + name + " violates its own validator: " + validator.rule());
    }
    return key;
  }

  /** This key, with its value masked in logs and error messages. */
  public ConfigKey<T> secret() {
    return new ConfigKey<>(name, type, defaultValue, required, validator, doc, true);
  }

  public String name() {
    return name;
  }

  public ConfigType<T> type() {
    return type;
  }

  /** The default, or null when the key is required or optional without a default. */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean required() {
    return required;
  }

  public Validator<? super T> validator() {
    return validator;
  }

  public String doc() {
    return doc;
  }

  /** Whether the value is masked (declared secret, or a name that looks like one). */
  public boolean secretValue() {
    return secret || EffectiveConfig.looksSecret(name);
  }

  /** The default as written in a property file, or {@code ""} when there is none. */
  public String renderedDefault() {
    return defaultValue == null ? "" : type.render(defaultValue);
  }

  @Override
  public String toString() {
    return name;
  }
}
