package io.herald.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A family of keys repeated per named instance: {@code consumer.destinations.<name>.base-url},
 * {@code writer.tenants.<tenant>.token-sha256}. Member keys have names relative to the instance
 * ({@code base-url}). Instance names are letters, digits, {@code _} and {@code -}.
 *
 * <p>Created by {@link ConfigDef.Builder#group}; members are added with {@link #define} during
 * static initialisation, and the group is frozen when its {@link ConfigDef} is built. Thread-safe
 * once frozen.
 */
public final class ConfigGroup {

  private final String prefix;
  private final String doc;
  private final List<ConfigKey<?>> keys = new ArrayList<>();
  private volatile boolean frozen;

  ConfigGroup(String prefix, String doc) {
    this.prefix = Objects.requireNonNull(prefix);
    this.doc = Objects.requireNonNull(doc);
  }

  /** Adds a member key (relative name) and returns it, for a one-line constant definition. */
  public synchronized <T> ConfigKey<T> define(ConfigKey<T> key) {
    if (frozen) {
      throw new IllegalStateException(
          "key " + key.name() + " defined after the ConfigDef of " + prefix + " was built");
    }
    if (find(key.name()).isPresent()) {
      throw new IllegalArgumentException("duplicate key " + prefix + ".<name>." + key.name());
    }
    keys.add(key);
    return key;
  }

  /** The prefix before the instance name, without a trailing dot: {@code consumer.destinations}. */
  public String prefix() {
    return prefix;
  }

  public String doc() {
    return doc;
  }

  /** The member keys, in definition order. */
  public List<ConfigKey<?>> keys() {
    return Collections.unmodifiableList(keys);
  }

  /** The full name of {@code key} for {@code instance}. */
  public String fullName(String instance, ConfigKey<?> key) {
    return prefix + "." + instance + "." + key.name();
  }

  Optional<ConfigKey<?>> find(String member) {
    return keys.stream().filter(k -> k.name().equals(member)).findFirst();
  }

  void freeze() {
    frozen = true;
  }
}
