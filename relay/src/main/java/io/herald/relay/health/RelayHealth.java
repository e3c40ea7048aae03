package io.herald.relay.health;

import io.herald.runtime.ops.HealthCheck;
import java.time.Duration;
import java.util.Optional;

/**
 * The relay's {@code /health} checks, read from {@link RelayStatus}. Thread-safe.
 *
 * <ul>
 *   <li>{@code relay}: up while standing by (a former leader that lost its lock also says why),
 *       starting or streaming; down when the relay failed, or when the oldest batch in flight has
 *       waited longer than {@link #KAFKA_WAIT_LIMIT} for Kafka (Kafka unreachable: the producer
 *       retries inside, so nothing else would show it). That wait runs from the batch's send, a
 *       full batch left in the open transaction included, through its commit and the engine's
 *       offset commit the sink waits for after it ({@link RelayStatus#waitingForKafka()}). The
 *       detail names the phase, the age of the last published event and of the last batch Kafka
 *       committed (heartbeats included: a streaming relay hands over a batch at least every
 *       heartbeat interval). Also down when, streaming, no batch has been committed for a heartbeat
 *       interval plus {@link #KAFKA_WAIT_LIMIT}: the engine is blocked outside the sink. Seen in
 *       {@code RelayKafkaOutageIT} when Kafka stopped while the engine was committing offsets
 *       between batches (after an empty poll Debezium commits them itself, and waits up to {@code
 *       offset.flush.timeout.ms} for the offsets producer), which the sink cannot see. A batch is
 *       dated at its commit, not once the offset commit after it returns: in one run the batch
 *       committed as Kafka stopped looked 10 s younger (its offset commit timed out after 10 s),
 *       which put the stalled check past the end of the IT's 30 s outage.
 *   <li>{@code slot-lag}: the WAL the slot holds back. Up with a warning above the threshold: a
 *       restart does not cure lag, so it should page a human, not a liveness probe.
 *   <li>{@code slot-failover}: with {@code relay.slot.failover}, whether a failover would keep the
 *       stream whole. Up with a warning when not (the same reasoning: an alert, not a restart).
 * </ul>
 */
public final class RelayHealth {

  /** A batch waiting longer than this for acknowledgements marks the relay DOWN. */
  public static final Duration KAFKA_WAIT_LIMIT = Duration.ofSeconds(15);

  private final RelayStatus status;
  private final long lagWarnBytes;
  private final Optional<Duration> heartbeatInterval;

  /** Without the stalled-engine check (no heartbeat interval known). */
  public RelayHealth(RelayStatus status, long lagWarnBytes) {
    this(status, lagWarnBytes, Optional.empty());
  }

  /**
   * @param heartbeatInterval Debezium's {@code heartbeat.interval.ms}; empty when heartbeats are
   *     off, which disables the stalled-engine check (an idle relay then has no batches)
   */
  public RelayHealth(RelayStatus status, long lagWarnBytes, Optional<Duration> heartbeatInterval) {
    this.status = status;
    this.lagWarnBytes = lagWarnBytes;
    this.heartbeatInterval = heartbeatInterval;
  }

  public HealthCheck relay() {
    return HealthCheck.of(
        "relay",
        () -> {
          RelayStatus.Phase phase = status.phase();
          java.util.Optional<Duration> waiting = status.waitingForKafka();
          Optional<Duration> batchAge = status.lastBatchAge();
          // Whether a streaming engine has handed over no batch for longer than its heartbeats
          // allow, wherever it waits. A Kafka outage can hold the engine in its offset commit
          // first and the sink after it: the sink's own wait then starts late and says little.
          boolean noBatchTooLong =
              phase == RelayStatus.Phase.STREAMING
                  && heartbeatInterval
                      .flatMap(
                          h -> batchAge.map(age -> age.compareTo(h.plus(KAFKA_WAIT_LIMIT)) > 0))
                      .orElse(false);
          boolean kafkaStuck =
              waiting.isPresent()
                  && (waiting.get().compareTo(KAFKA_WAIT_LIMIT) > 0 || noBatchTooLong);
          boolean engineStalled = noBatchTooLong && waiting.isEmpty();
          String detail =
              phase
                  + (kafkaStuck
                      ? "; waiting "
                          + ago(waiting.get()).replace(" ago", "")
                          + " for Kafka to acknowledge"
                          + (noBatchTooLong
                              ? ", no batch for " + ago(batchAge.get()).replace(" ago", "")
                              : "")
                      : "")
                  + (engineStalled
                      ? "; no batch for "
                          + ago(batchAge.get()).replace(" ago", "")
                          + " although a heartbeat is due every "
                          + heartbeatInterval.get().toMillis()
                          + " ms: the engine is blocked outside the sink, most likely waiting for"
                          + " Kafka to acknowledge its offset commit"
                      : "")
                  + "; last event "
                  + status.lastEventAge().map(RelayHealth::ago).orElse("never")
                  + "; last batch "
                  + status.lastBatchAge().map(RelayHealth::ago).orElse("never")
                  + status.failure().map(reason -> "; " + reason).orElse("")
                  + status.standbyReason().map(reason -> "; " + reason).orElse("");
          return switch (phase) {
            case STANDBY, STARTING, STREAMING, STOPPING ->
                kafkaStuck || engineStalled
                    ? HealthCheck.Status.down(detail)
                    : HealthCheck.Status.up(detail);
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

  public HealthCheck slotFailover() {
    return HealthCheck.of(
        "slot-failover",
        () -> {
          long ready = status.failoverReady();
          String detail = status.failoverDetail().orElse("not checked (standby, or off)");
          return HealthCheck.Status.up(ready == 0 ? "WARNING: " + detail : detail);
        });
  }

  private static String ago(Duration age) {
    return age.toMillis() + " ms ago";
  }
}
