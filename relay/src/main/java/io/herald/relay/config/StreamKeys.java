package io.herald.relay.config;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Validator;
import io.herald.relay.debezium.StreamIdleWait;
import java.time.Duration;

/**
 * The replication-stream keys under a prefix ({@code relay.stream}): {@code idle-wait}, {@code
 * idle-after}, read into {@link StreamIdleWait}. Immutable and thread-safe.
 */
public final class StreamKeys {

  private final ConfigKey<Duration> idleWait;
  private final ConfigKey<Duration> idleAfter;

  private StreamKeys(ConfigDef.Builder def, String prefix) {
    idleWait =
        def.define(
            ConfigKey.optional(
                    prefix + ".idle-wait",
                    ConfigType.DURATION,
                    Duration.ofMillis(200),
                    "Once the replication stream has been quiet for "
                        + prefix
                        + ".idle-after, each of Debezium's pending-message reads waits up to this long for data instead of 1 ms: an idle relay wakes when PostgreSQL sends rather than polling. 0ms keeps the driver's 1 ms reads. At most 1s (it also bounds how long a stop waits for the streaming thread).")
                .validatedBy(
                    Validator.of(
                        wait ->
                            wait.isZero()
                                || (wait.compareTo(Duration.ofMillis(2)) >= 0
                                    && wait.compareTo(Duration.ofSeconds(1)) <= 0),
                        "0ms, or between 2ms and 1s")));
    idleAfter =
        def.define(
            ConfigKey.optional(
                    prefix + ".idle-after",
                    ConfigType.DURATION,
                    Duration.ofMillis(250),
                    "How long the replication stream must carry nothing before "
                        + prefix
                        + ".idle-wait applies; a stream that has just carried data keeps 1 ms reads, so a trickle of events leaves the driver's connection free for offset commits as often as before.")
                .validatedBy(Validator.atLeast(Duration.ZERO)));
  }

  /** Defines the keys under {@code prefix} in {@code def}. */
  public static StreamKeys define(ConfigDef.Builder def, String prefix) {
    return new StreamKeys(def, prefix);
  }

  /** The idle wait read from {@code values}. */
  public StreamIdleWait read(ConfigValues values) {
    return new StreamIdleWait(values.get(idleWait), values.get(idleAfter));
  }

  public ConfigKey<Duration> idleWait() {
    return idleWait;
  }

  public ConfigKey<Duration> idleAfter() {
    return idleAfter;
  }
}
