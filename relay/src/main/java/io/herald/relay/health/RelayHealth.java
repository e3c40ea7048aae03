package io.herald.relay.health;

import io.herald.runtime.ops.HealthCheck;
import java.time.Duration;

/**
 * The relay's {@code /health} checks, read from {@link RelayStatus}. Thread-safe.
 *
 * <ul>
 *   <li>{@code relay}: up while standing by, starting or streaming; down when Kafka is unreachable
 *       or the relay failed. The detail names the phase, the age of the last published event and of
 *       the last batch (heartbeats included: a streaming relay hands over a batch at least every
 *       heartbeat interval, so a growing batch age means the connection to PostgreSQL is stuck).
 *   <li>{@code slot-lag}: the WAL the slot holds back. Up with a warning above the threshold: a
 *       restart does not cure lag, so it should page a human, not a liveness probe.
 * </ul>
 */
public final class RelayHealth {

  private final RelayStatus status;
  private final long lagWarnBytes;

  public RelayHealth(RelayStatus status, long lagWarnBytes) {
    this.status = status;
    this.lagWarnBytes = lagWarnBytes;
  }

  public HealthCheck relay() {
    return HealthCheck.of(
        "relay",
        () -> {
          RelayStatus.Phase phase = status.phase();
          String detail =
              phase
                  + "; last event "
                  + status.lastEventAge().map(RelayHealth::ago).orElse("never")
                  + "; last batch "
                  + status.lastBatchAge().map(RelayHealth::ago).orElse("never")
                  + status.failure().map(reason -> "; " + reason).orElse("");
          return switch (phase) {
            case STANDBY, STARTING, STREAMING, STOPPING -> HealthCheck.Status.up(detail);
            case KAFKA_UNAVAILABLE, FAILED -> HealthCheck.Status.down(detail);
          };
        });
  }

  public HealthCheck slotLag() {
    return HealthCheck.of(
        "slot-lag",
        () -> {
          long lag = status.slotLagBytes();
          if (lag < 0) {
            return HealthCheck.Status.up("not measured (standby, or the last check failed)");
          }
          return HealthCheck.Status.up(
              (lag > lagWarnBytes ? "WARNING: " : "")
                  + lag
                  + " bytes of WAL behind the slot (warning above "
                  + lagWarnBytes
                  + ")");
        });
  }

  private static String ago(Duration age) {
    return age.toMillis() + " ms ago";
  }
}
