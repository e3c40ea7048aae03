package io.herald.relay.slot;

import io.herald.relay.health.RelayStatus;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures how much WAL the slot holds back ({@code pg_current_wal_lsn() - confirmed_flush_lsn})
 * and warns above a threshold: a growing lag means the relay is stuck or too slow, and the WAL it
 * retains can fill the database's disk.
 *
 * <p>Run periodically by one scheduler thread; each run is one short query.
 */
public final class SlotLagMonitor implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(SlotLagMonitor.class);

  /**
   * The monitor's settings ({@code relay.slot.*}).
   *
   * @param warnBytes retained WAL above which the relay warns
   * @param checkInterval how often the lag is measured
   */
  public record Settings(long warnBytes, Duration checkInterval) {}

  private final PostgresSlots slots;
  private final String slotName;
  private final long warnBytes;
  private final RelayStatus status;
  private boolean warned;

  public SlotLagMonitor(PostgresSlots slots, String slotName, long warnBytes, RelayStatus status) {
    this.slots = slots;
    this.slotName = slotName;
    this.warnBytes = warnBytes;
    this.status = status;
  }

  @Override
  public void run() {
    Optional<Long> lag;
    try {
      lag = slots.lagBytes();
    } catch (SQLException e) {
      status.slotLagBytes(-1);
      log.warn(
          "Could not measure the lag of slot '{}' (SQLState {})", slotName, e.getSQLState(), e);
      return;
    } catch (RuntimeException e) {
      status.slotLagBytes(-1);
      log.warn("Could not measure the lag of slot '{}'", slotName, e);
      return;
    }
    if (lag.isEmpty()) {
      status.slotLagBytes(-1);
      log.error("Replication slot '{}' has disappeared while the relay streams", slotName);
      return;
    }
    long bytes = lag.get();
    status.slotLagBytes(bytes);
    if (bytes > warnBytes) {
      log.warn(
          "Replication slot '{}' holds back {} bytes of WAL (threshold {}): the relay is behind or"
              + " stuck, and the retained WAL grows on the database's disk",
          slotName,
          bytes,
          warnBytes);
      warned = true;
    } else if (warned) {
      log.info("Replication slot '{}' lag is back to {} bytes", slotName, bytes);
      warned = false;
    }
  }
}
