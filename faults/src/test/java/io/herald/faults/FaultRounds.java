package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.KafkaBroker;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs a fault class's rounds for its IT and asserts that every round held. By default (the build's
 * CI mode) one short round; the soak runs many (RELIABILITY.md gives the command): {@code
 * -Dherald.faults.rounds} (default 1), {@code -Dherald.faults.seed} (the first round's seed; each
 * round prints its own), {@code -Dherald.faults.intents} (unique intents per round, default 150),
 * {@code -Dherald.faults.spread} (seconds the load of a round takes, default 6), {@code
 * -Dherald.faults.broker-down} (F5: the longest a broker kill keeps Kafka down, default 5 s). Each
 * IT class has its own database, slot and topics.
 */
final class FaultRounds {

  private FaultRounds() {}

  /** Runs the rounds and asserts each held; returns their reports for a class's own checks. */
  static List<RoundReport> runAndAssertEveryRoundHeld(StackContext stack, FaultClass fault)
      throws Exception {
    return runAndAssertEveryRoundHeld(stack, stack.stack().kafka(), fault);
  }

  /** As above, with the pipeline's Kafka on {@code kafka} (a cluster the IT started). */
  static List<RoundReport> runAndAssertEveryRoundHeld(
      StackContext stack, KafkaBroker kafka, FaultClass fault) throws Exception {
    List<RoundReport> reports = new FaultRunner(stack, kafka, fault, settings(), System.out).run();
    assertThat(reports).isNotEmpty();
    for (RoundReport report : reports) {
      assertThat(report.faults()).as(report.format()).isNotEmpty();
      assertThat(report.ok()).as(report.format()).isTrue();
      assertThat(report.auditSummary())
          .as(report.format())
          .startsWith("audit: lost=0 duplicate_remote_articles=0");
    }
    return reports;
  }

  /**
   * The longest a broker kill keeps Kafka down: {@code -Dherald.faults.broker-down} seconds,
   * default 5 (CI mode); the soak raises it.
   */
  static Duration brokerDown() {
    return Duration.ofSeconds(Integer.getInteger("herald.faults.broker-down", 5));
  }

  private static FaultRunner.Settings settings() {
    long seed =
        Long.getLong("herald.faults.seed", ThreadLocalRandom.current().nextLong(1, 1L << 48));
    return new FaultRunner.Settings(
        Integer.getInteger("herald.faults.rounds", 1),
        seed,
        Integer.getInteger("herald.faults.intents", 150),
        Duration.ofSeconds(Integer.getInteger("herald.faults.spread", 6)),
        Duration.ofMinutes(3));
  }
}
