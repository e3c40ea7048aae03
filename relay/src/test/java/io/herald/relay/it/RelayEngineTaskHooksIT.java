package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.config.RelayConfig;
import io.herald.relay.debezium.TaskHooks;
import io.herald.relay.engine.RelayEngine;
import io.herald.relay.health.RelayStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.connect.source.SourceRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A started engine's task finds the hooks its engine registered (its slot confirmations reach the
 * relay), and the registry lets them go once the engine has stopped: a relay that changes engines
 * (each leadership term, each restart after a failure) keeps one registration per running engine,
 * not one per engine it ever made. The engine runs in this JVM, against the stack's database and
 * broker, with a sink that only marks what it is given.
 */
@HeraldIntegrationTest
class RelayEngineTaskHooksIT {

  /** Marks every record processed and the batch finished, publishing nothing. */
  private static final DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> MARKING_SINK =
      (records, committer) -> {
        for (RecordChangeEvent<SourceRecord> record : records) {
          committer.markProcessed(record);
        }
        committer.markBatchFinished();
      };

  @Test
  void shouldRegisterTheTaskHooksWhileTheEngineRunsAndReleaseThemOnceItStopped(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, getClass().getSimpleName());
    RelayConfig config = RelayConfig.load(fixture.properties(Map.of()), Map.of());
    int before = TaskHooks.registered();
    List<Boolean> confirmations = new CopyOnWriteArrayList<>();

    for (int term = 1; term <= 2; term++) {
      RelayEngine engine =
          new RelayEngine(
              config.engine(),
              MARKING_SINK,
              new RelayStatus(Clock.systemUTC()),
              confirmations::add);
      assertThat(TaskHooks.registered()).as("made, not started").isEqualTo(before);

      engine.start();
      assertThat(TaskHooks.registered()).as("term %d running", term).isEqualTo(before + 1);
      int confirmedBefore = confirmations.size();
      fixture.writerOutbox(5).insert(20, 5);
      Awaitility.await("a confirmation reported through the hooks in term " + term)
          .atMost(Duration.ofMinutes(1))
          .until(() -> confirmations.size() > confirmedBefore);

      assertThat(engine.stop(Duration.ofSeconds(60))).as("term %d stopped", term).isTrue();
      // Released as the engine's completion completes, which stop() has waited for.
      Awaitility.await("term " + term + "'s hooks released")
          .atMost(Duration.ofSeconds(10))
          .until(() -> TaskHooks.registered() == before);
    }
  }
}
