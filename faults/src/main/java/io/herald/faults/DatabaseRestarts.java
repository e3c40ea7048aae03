package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.simulator.DestinationSimulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * F7: PostgreSQL's immediate shutdown under load (what {@code pg_ctl stop -m immediate} does: every
 * session cut, no checkpoint), down for a seeded while, started again (crash recovery on the same
 * data and port). None of the three processes is restarted: each must come back by itself (the
 * relay to standby and then to the lock again, the writer's and the consumer's pools to new
 * sessions), and every write the writer acknowledged before the shutdown must be published.
 */
final class DatabaseRestarts implements FaultClass {

  private static final int MIN_DOWN_MILLIS = 300;
  private static final int MAX_DOWN_MILLIS = 3000;
  private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);

  private final PostgresServer postgres;
  private final List<String> violations = new ArrayList<>();
  private long maxRecoveryMillis;

  DatabaseRestarts(PostgresServer postgres) {
    this.postgres = postgres;
  }

  @Override
  public String id() {
    return "F7";
  }

  @Override
  public String description() {
    return "PostgreSQL immediate shutdown and restart under load: every acknowledged write"
        + " published; the processes recover without being restarted";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    int down = MIN_DOWN_MILLIS + random.nextInt(MAX_DOWN_MILLIS - MIN_DOWN_MILLIS);
    postgres.stopImmediately();
    try {
      Thread.sleep(down);
    } finally {
      // The stack is shared with the module's other IT classes: never leave it stopped.
      postgres.start();
    }
    long started = System.nanoTime();
    SelfRecovery.Result recovery = SelfRecovery.await(pipeline, started, RECOVERY_TIMEOUT);
    if (!recovery.unhealthy().isEmpty()) {
      violations.add(
          "not healthy by itself within "
              + RECOVERY_TIMEOUT
              + " of PostgreSQL's restart: "
              + recovery.unhealthy());
    }
    maxRecoveryMillis = Math.max(maxRecoveryMillis, recovery.millis());
    return String.format(
        "PostgreSQL immediate shutdown (down %d ms; all processes healthy %d ms after its start,"
            + " none restarted)",
        down, recovery.millis());
  }

  @Override
  public RoundChecks endRound() {
    Map<String, Long> figures = new LinkedHashMap<>();
    figures.put("max_self_recovery_ms", maxRecoveryMillis);
    RoundChecks checks = new RoundChecks(figures, violations);
    violations.clear();
    maxRecoveryMillis = 0;
    return checks;
  }
}
