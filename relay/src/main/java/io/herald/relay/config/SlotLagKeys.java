package io.herald.relay.config;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Validator;
import io.herald.relay.slot.SlotLagMonitor;
import java.time.Duration;

/**
 * The slot-lag keys under a prefix ({@code relay.slot}): {@code lag-warn-bytes}, {@code
 * lag-check-interval}, read into {@link SlotLagMonitor.Settings}. Immutable and thread-safe.
 */
public final class SlotLagKeys {

  private final ConfigKey<Long> warnBytes;
  private final ConfigKey<Duration> checkInterval;
  private final ConfigKey<Boolean> failover;

  private SlotLagKeys(ConfigDef.Builder def, String prefix) {
    warnBytes =
        def.define(
            ConfigKey.optional(
                    prefix + ".lag-warn-bytes",
                    ConfigType.BYTES,
                    1L << 30,
                    "Retained WAL behind the slot above which /health reports a warning and a log line is written.")
                .validatedBy(Validator.atLeast(1L)));
    checkInterval =
        def.define(
            ConfigKey.optional(
                    prefix + ".lag-check-interval",
                    ConfigType.DURATION,
                    Duration.ofSeconds(30),
                    "How often the slot lag is measured.")
                .validatedBy(Validator.positive()));
    failover =
        def.define(
            ConfigKey.optional(
                prefix + ".failover",
                ConfigType.BOOLEAN,
                false,
                "Keep the slot a failover slot (PostgreSQL 17+): each leader term sets failover = true on it if unset, so a physical standby with sync_replication_slots = on keeps a synchronized copy that streams on after promotion. The relay then reports in /health and herald_relay_slot_failover_ready whether the primary's synchronized_standby_slots names an active standby slot; without that setting a failover can leave events in Kafka for commits the new primary never received. Refused on older servers."));
  }

  /** Defines the keys under {@code prefix} in {@code def}. */
  public static SlotLagKeys define(ConfigDef.Builder def, String prefix) {
    return new SlotLagKeys(def, prefix);
  }

  /** The monitor's settings read from {@code values}. */
  public SlotLagMonitor.Settings read(ConfigValues values) {
    return new SlotLagMonitor.Settings(values.get(warnBytes), values.get(checkInterval));
  }

  /** Whether the slot is kept a failover slot. */
  public boolean failover(ConfigValues values) {
    return values.get(failover);
  }

  public ConfigKey<Long> warnBytes() {
    return warnBytes;
  }

  public ConfigKey<Duration> checkInterval() {
    return checkInterval;
  }
}
