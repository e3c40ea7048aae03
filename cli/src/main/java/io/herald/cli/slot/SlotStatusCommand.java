package io.herald.cli.slot;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.herald.cli.ConfigDir;
import io.herald.cli.Herald;
import io.herald.cli.JsonOption;
import io.herald.common.json.Json;
import io.herald.relay.config.RelayConfig;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code herald slot status}: the relay's slot ({@code debezium.source.slot.name} in {@code
 * relay.properties}), read with the relay's database settings. Exit 1 when the slot is missing or
 * its lag is over {@code relay.slot.lag-warn-bytes}.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Slot, plugin, reader, confirmed_flush_lsn, WAL retained, lag against"
            + " relay.slot.lag-warn-bytes, and (PostgreSQL 17+) invalidation, failover,"
            + " synced and the server's synchronized_standby_slots. Exit 1 when the slot is missing, invalidated or lags over the warning.")
final class SlotStatusCommand implements Callable<Integer> {

  private final Supplier<ConfigDir> configDir;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin JsonOption json;

  SlotStatusCommand(Supplier<ConfigDir> configDir) {
    this.configDir = configDir;
  }

  @Override
  public Integer call() throws JsonProcessingException {
    RelayConfig relay = configDir.get().relay();
    SlotStatus status =
        SlotQuery.read(
            relay.database(),
            relay.engine().slotName(),
            relay.engine().databaseName(),
            relay.slotLag().warnBytes());
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled()) {
      out.println(Json.mapper().writeValueAsString(status));
    } else {
      out.print(human(status));
      out.flush();
    }
    return status.violated() ? Herald.EXIT_VIOLATION : Herald.EXIT_OK;
  }

  /** The fields, one per line, then a verdict line (OK or VIOLATION and why). */
  static String human(SlotStatus s) {
    String nl = System.lineSeparator();
    if (!s.exists()) {
      return "VIOLATION: replication slot '"
          + s.slot()
          + "' does not exist in database '"
          + s.database()
          + "'"
          + nl;
    }
    StringBuilder text = new StringBuilder();
    line(text, "slot", s.slot());
    line(text, "database", s.database());
    line(text, "plugin", s.plugin());
    line(text, "active", String.valueOf(s.active()));
    line(text, "active_pid", s.activePid() == null ? "-" : s.activePid().toString());
    line(text, "confirmed_flush_lsn", orDash(s.confirmedFlushLsn()));
    line(text, "restart_lsn", orDash(s.restartLsn()));
    line(text, "wal_status", orDash(s.walStatus()));
    line(
        text,
        "wal_retained_bytes",
        s.walRetainedBytes() == null ? "-" : s.walRetainedBytes().toString());
    line(text, "lag_bytes", s.lagBytes() == null ? "-" : s.lagBytes().toString());
    line(text, "lag_warn_bytes", Long.toString(s.lagWarnBytes()));
    line(text, "invalidation_reason", orDash(s.invalidationReason()));
    line(text, "timeline", s.timeline() == null ? "-" : s.timeline().toString());
    line(text, "failover", s.failover() == null ? "-" : s.failover().toString());
    line(text, "synced", s.synced() == null ? "-" : s.synced().toString());
    line(
        text,
        "sync standby slots",
        s.synchronizedStandbySlots() == null
            ? "-"
            : s.synchronizedStandbySlots().isBlank()
                ? (Boolean.TRUE.equals(s.failover())
                    ? "none (WARNING: a failover can publish events for commits the standby lacks)"
                    : "none")
                : s.synchronizedStandbySlots());
    if (s.invalidated()) {
      return text.append("VIOLATION: the slot is invalidated (")
          .append(s.invalidationReason() == null ? "wal_status lost" : s.invalidationReason())
          .append("): it can never stream again; the events after confirmed_flush_lsn must be")
          .append(" recovered from the retained outbox")
          .append(nl)
          .toString();
    }
    text.append(
            s.lagOverWarning()
                ? "VIOLATION: lag "
                    + s.lagBytes()
                    + " bytes is over relay.slot.lag-warn-bytes="
                    + s.lagWarnBytes()
                : "OK: lag "
                    + (s.lagBytes() == null ? "unknown" : s.lagBytes() + " bytes")
                    + " within relay.slot.lag-warn-bytes="
                    + s.lagWarnBytes())
        .append(nl);
    return text.toString();
  }

  private static void line(StringBuilder text, String name, String value) {
    text.append(name)
        .append(" ".repeat(22 - name.length()))
        .append(value)
        .append(System.lineSeparator());
  }

  private static String orDash(String value) {
    return value == null ? "-" : value;
  }
}
