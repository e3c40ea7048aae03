package io.herald.relay.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HandClock;
import io.herald.runtime.ops.HealthCheck;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelayHealthTest {

  /** A streaming relay's status and health on a manual clock, heartbeats on. */
  private record Streaming(HandClock clock, RelayStatus status, RelayHealth health) {
    static Streaming withHeartbeatsEvery(Duration interval) {
      HandClock clock = new HandClock();
      RelayStatus status = new RelayStatus(clock);
      status.phase(RelayStatus.Phase.STREAMING);
      return new Streaming(
          clock, status, new RelayHealth(status, 100, java.util.Optional.of(interval)));
    }
  }

  @Test
  void shouldReportAStandbyAsUp() {
    RelayStatus status = new RelayStatus(new HandClock());

    HealthCheck.Status health = new RelayHealth(status, 100).relay().check();

    assertThat(health.up()).isTrue();
    assertThat(health.detail()).startsWith("STANDBY");
  }

  @Test
  void shouldReportAFormerLeaderBackOnStandbyAsUpWithTheReasonAndNoStaleKafkaWait() {
    HandClock clock = new HandClock();
    RelayStatus status = new RelayStatus(clock);
    status.phase(RelayStatus.Phase.STREAMING);
    status.slotLagBytes(4096);
    status.sending(); // a batch was waiting for Kafka when the lock session went away
    clock.advance(RelayHealth.KAFKA_WAIT_LIMIT.plusSeconds(1));
    RelayHealth health = new RelayHealth(status, 100);

    status.backToStandby("lost the leader lock; standing by to take it again");
    HealthCheck.Status standby = health.relay().check();
    status.phase(RelayStatus.Phase.STARTING);
    HealthCheck.Status leadingAgain = health.relay().check();

    assertThat(standby.up()).isTrue();
    assertThat(standby.detail())
        .startsWith("STANDBY")
        .contains("lost the leader lock")
        .doesNotContain("waiting");
    assertThat(status.slotLagBytes()).isEqualTo(-1);
    assertThat(leadingAgain.detail()).doesNotContain("lost the leader lock");
  }

  @Test
  void shouldReportDownWhenABatchWaitsTooLongForKafka() {
    HandClock clock = new HandClock();
    RelayStatus status = new RelayStatus(clock);
    status.phase(RelayStatus.Phase.STREAMING);
    RelayHealth health = new RelayHealth(status, 100);

    status.sending();
    clock.advance(RelayHealth.KAFKA_WAIT_LIMIT.plusSeconds(1));
    HealthCheck.Status stuck = health.relay().check();
    status.batchDone(10);
    status.settled();
    HealthCheck.Status recovered = health.relay().check();

    assertThat(stuck.up()).isFalse();
    assertThat(stuck.detail()).contains("for Kafka to acknowledge");
    assertThat(recovered.up()).isTrue();
    assertThat(recovered.detail()).contains("last event 0 ms ago");
  }

  @Test
  void shouldReportDownWhenAStreamingEngineHandsOverNoBatchForAHeartbeatIntervalPlusTheLimit() {
    Streaming relay = Streaming.withHeartbeatsEvery(Duration.ofSeconds(10));
    HandClock clock = relay.clock();
    RelayStatus status = relay.status();
    RelayHealth health = relay.health();

    status.batchDone(1);
    clock.advance(Duration.ofSeconds(10).plus(RelayHealth.KAFKA_WAIT_LIMIT));
    HealthCheck.Status atTheLimit = health.relay().check();
    clock.advance(Duration.ofSeconds(1));
    HealthCheck.Status stalled = health.relay().check();
    status.batchDone(0);
    HealthCheck.Status moving = health.relay().check();

    assertThat(atTheLimit.up()).isTrue();
    assertThat(stalled.up()).isFalse();
    assertThat(stalled.detail()).contains("no batch for 26000 ms").contains("offset commit");
    assertThat(moving.up()).isTrue();
  }

  @Test
  void shouldStayDownWhenAnEngineHeldInItsOffsetCommitHandsItsSinkABatchThatKafkaDoesNotTake() {
    // RelayKafkaOutageIT once saw /health UP at the end of a 30 s outage: the engine, held in its
    // offset commit, handed the sink a batch late, and the sink's own wait had not reached 15 s.
    Streaming relay = Streaming.withHeartbeatsEvery(Duration.ofSeconds(10));
    HandClock clock = relay.clock();
    RelayStatus status = relay.status();
    RelayHealth health = relay.health();
    status.batchDone(1);

    clock.advance(Duration.ofSeconds(20));
    status.sending();
    HealthCheck.Status sendingLate = health.relay().check();
    clock.advance(Duration.ofSeconds(10));
    HealthCheck.Status stillWaiting = health.relay().check();
    status.batchDone(5);
    status.settled();
    HealthCheck.Status acknowledged = health.relay().check();

    assertThat(sendingLate.up()).isTrue();
    assertThat(stillWaiting.up()).isFalse();
    assertThat(stillWaiting.detail())
        .contains("waiting 10000 ms for Kafka to acknowledge, no batch for 30000 ms");
    assertThat(acknowledged.up()).isTrue();
  }

  @Test
  void shouldNotReportAnIdleEngineAsStalledWhenHeartbeatsAreOff() {
    HandClock clock = new HandClock();
    RelayStatus status = new RelayStatus(clock);
    status.phase(RelayStatus.Phase.STREAMING);
    status.batchDone(1);

    clock.advance(Duration.ofMinutes(10));

    assertThat(new RelayHealth(status, 100, java.util.Optional.empty()).relay().check().up())
        .isTrue();
  }

  @Test
  void shouldWarnAboutSlotLagAboveTheThresholdWithoutFailingTheProbe() {
    RelayStatus status = new RelayStatus(new HandClock());
    status.slotLagBytes(500);

    HealthCheck.Status lag = new RelayHealth(status, 100).slotLag().check();

    assertThat(lag.up()).isTrue();
    assertThat(lag.detail()).startsWith("WARNING: 500 bytes");
  }
}
