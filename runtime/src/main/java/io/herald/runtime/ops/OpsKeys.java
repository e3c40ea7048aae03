package io.herald.runtime.ops;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Validator;

/**
 * The ops-endpoint keys every process has, under a prefix ({@code writer.ops}, {@code relay.ops},
 * {@code consumer.ops}): {@code host} and {@code port}, read into one {@link OpsEndpoint}.
 * Immutable and thread-safe.
 */
public final class OpsKeys {

  private final ConfigKey<String> host;
  private final ConfigKey<Integer> port;

  private OpsKeys(ConfigDef.Builder def, String prefix, int defaultPort, String portDoc) {
    host =
        def.define(
            ConfigKey.optional(
                    prefix + ".host",
                    ConfigType.STRING,
                    "0.0.0.0",
                    "Interface /health and /metrics bind to.")
                .validatedBy(Validator.notBlank()));
    port =
        def.define(
            ConfigKey.optional(prefix + ".port", ConfigType.INT, defaultPort, portDoc)
                .validatedBy(Validator.port()));
  }

  /**
   * Defines {@code prefix.host} and {@code prefix.port} in {@code def}.
   *
   * @param portDoc the port's documentation (what else shares or avoids it)
   */
  public static OpsKeys define(
      ConfigDef.Builder def, String prefix, int defaultPort, String portDoc) {
    return new OpsKeys(def, prefix, defaultPort, portDoc);
  }

  /** The endpoint read from {@code values}. */
  public OpsEndpoint read(ConfigValues values) {
    return new OpsEndpoint(values.get(host), values.get(port));
  }
}
