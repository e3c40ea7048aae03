package io.herald.relay.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.relay.ha.LeaderWatch.Engine;
import io.herald.relay.ha.LeaderWatch.Next;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderWatchTest {

  @ParameterizedTest(name = "engine {0}, stop requested {1}, lock held {2} -> {3}")
  @CsvSource({
    // Streaming as leader.
    "RUNNING, false, true,  KEEP_WATCHING",
    // The database went away (restart, failover) or ended a frozen relay's session.
    "RUNNING, false, false, BACK_TO_STANDBY",
    "STOPPED, false, false, BACK_TO_STANDBY",
    "FAILED,  false, false, BACK_TO_STANDBY",
    // Still leader, yet the engine ended: a failure the relay cannot explain.
    "STOPPED, false, true,  EXIT_ENGINE_FAILED",
    "FAILED,  false, true,  EXIT_ENGINE_FAILED",
    // A requested stop: the lock does not matter, the stop ends the engine either way.
    "RUNNING, true,  true,  KEEP_WATCHING",
    "RUNNING, true,  false, KEEP_WATCHING",
    "STOPPED, true,  true,  EXIT_STOPPED",
    "STOPPED, true,  false, EXIT_STOPPED",
    "FAILED,  true,  true,  EXIT_ENGINE_FAILED",
    "FAILED,  true,  false, EXIT_ENGINE_FAILED",
  })
  void shouldDecideWhatTheLeaderDoesNext(
      Engine engine, boolean stopRequested, boolean lockHeld, Next expected) {
    assertThat(LeaderWatch.next(engine, stopRequested, lockHeld)).isEqualTo(expected);
  }
}
