package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import org.junit.jupiter.api.Test;

/**
 * F13 of RELIABILITY.md: another client holds every free connection slot of PostgreSQL for a few
 * seconds under load; the writer answers 503, clients resend, every process recovers by itself.
 */
@HeraldIntegrationTest
class ConnectionHogIT {

  /**
   * Slots left free while the pipeline runs, taken at each injection: the pipeline's start (three
   * pools, the leader lock, the migrations) and the herald command need fewer.
   */
  private static final int MARGIN = 64;

  @Test
  void shouldAnswer503LoseNothingAndRecoverByItselfWhenPostgresRefusesConnections(
      StackContext stack) throws Exception {
    try (ConnectionHog hog = new ConnectionHog(stack)) {
      hog.openBallast(MARGIN);
      for (RoundReport report : FaultRounds.runAndAssertEveryRoundHeld(stack, hog)) {
        // The refusal was felt (else the round proves nothing) and answered, never left hanging.
        assertThat(report.figure("writer_503")).as(report.format()).isPositive();
        assertThat(report.figure("no_answer_in_10s")).as(report.format()).isZero();
      }
    }
  }
}
