package io.herald.relay.config;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Durations;
import io.herald.config.Validator;
import io.herald.relay.ha.LeaderLock;
import java.time.Duration;

/**
 * The active/standby keys under a prefix ({@code relay.standby}): {@code lock-key}, {@code
 * poll-interval}, {@code dead-peer-timeout}, read into {@link LeaderLock.Settings}. Immutable and
 * thread-safe.
 */
public final class StandbyKeys {

  private final ConfigKey<Long> lockKey;
  private final ConfigKey<Duration> pollInterval;
  private final ConfigKey<Duration> deadPeerTimeout;

  private StandbyKeys(ConfigDef.Builder def, String prefix) {
    lockKey =
        def.define(
            ConfigKey.optional(
                prefix + ".lock-key",
                ConfigType.LONG,
                4_851_102_017L,
                "PostgreSQL advisory lock key: the relay holding it streams, the others wait as standbys. Same value for every relay of one database."));
    pollInterval =
        def.define(
            ConfigKey.optional(
                    prefix + ".poll-interval",
                    ConfigType.DURATION,
                    Duration.ofSeconds(2),
                    "How often a standby tries to take the lock (bounds fail-over time).")
                .validatedBy(Validator.atLeast(Duration.ofMillis(100))));
    deadPeerTimeout =
        def.define(
            ConfigKey.optional(
                    prefix + ".dead-peer-timeout",
                    ConfigType.DURATION,
                    Duration.ofSeconds(10),
                    "How long PostgreSQL waits on an unresponsive active relay (TCP keepalive, tcp_user_timeout, and from PostgreSQL 14 idle_session_timeout on the lock connection) before ending its session, freeing the lock for a standby. At least twice "
                        + prefix
                        + ".poll-interval.")
                .validatedBy(Validator.atLeast(Duration.ofSeconds(1))));
  }

  /** Defines the keys under {@code prefix} in {@code def}. */
  public static StandbyKeys define(ConfigDef.Builder def, String prefix) {
    return new StandbyKeys(def, prefix);
  }

  /** Records the contradictions between these keys. */
  void validate(ConfigValues values, ConfigProblems problems) {
    Duration poll = values.get(pollInterval);
    Duration deadPeer = values.get(deadPeerTimeout);
    if (poll.multipliedBy(2).compareTo(deadPeer) > 0) {
      problems.contradiction(
          values.fullName(pollInterval),
          Durations.format(poll),
          "is more than half of",
          values.fullName(deadPeerTimeout),
          Durations.format(deadPeer),
          "the streaming relay uses its lock session once per poll interval, and the server ends"
              + " that session once it has been idle for the dead-peer timeout");
    }
  }

  /** The lock's settings read from {@code values}. */
  public LeaderLock.Settings read(ConfigValues values) {
    return new LeaderLock.Settings(
        values.get(lockKey), values.get(pollInterval), values.get(deadPeerTimeout));
  }

  public ConfigKey<Long> lockKey() {
    return lockKey;
  }

  public ConfigKey<Duration> pollInterval() {
    return pollInterval;
  }

  public ConfigKey<Duration> deadPeerTimeout() {
    return deadPeerTimeout;
  }
}
