package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.demo.Pipeline;
import io.herald.demo.PipelineSettings;
import io.herald.demo.Showcase;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * F11 of RELIABILITY.md: outbox rows by one multi-row INSERT, one COPY and one large transaction
 * straight into the writer's schema, the relay SIGKILLed mid-stream after each; every event id
 * reaches the publication topic. {@code -Dherald.faults.bigtx} sets the large transaction's rows
 * (default 20,000; the soak: 200,000), {@code -Dherald.faults.seed} replays a run.
 */
@HeraldIntegrationTest
class BulkOutboxIT {

  /** Rows of the multi-row INSERT and the COPY: enough that the kill lands while they stream. */
  private static final int BATCH_ROWS = 4000;

  @Test
  void shouldPublishEveryBulkWrittenOutboxRowWhenTheRelayIsKilledMidStream(StackContext stack)
      throws Exception {
    long seed =
        Long.getLong("herald.faults.seed", ThreadLocalRandom.current().nextLong(1, 1L << 48));
    int bigTransaction = Integer.getInteger("herald.faults.bigtx", 20_000);
    System.out.printf(
        "F11: seed %d (rerun: -Dherald.faults.seed=%d), large transaction %d rows%n",
        seed, seed, bigTransaction);
    Path workDir = Path.of("target", "faults", "f11");
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings =
          PipelineSettings.isolated(
              stack, simulator.baseUri(), FaultRunner.configDir(), workDir.resolve("logs"));
      try (Pipeline pipeline = Pipeline.start(settings, Showcase.OVERRIDES)) {
        // Kafka is what is checked: the consumer would need minutes for the large transaction.
        pipeline.process("consumer").stop(Duration.ofSeconds(30));
        BulkOutbox bulk =
            new BulkOutbox(stack, settings, pipeline, seed, Duration.ofMinutes(5), System.out);
        List<BulkOutbox.Result> results =
            List.of(
                bulk.multiRowInsert(BATCH_ROWS),
                bulk.copy(BATCH_ROWS),
                bulk.bigTransaction(bigTransaction));
        for (BulkOutbox.Result result : results) {
          assertThat(result.missing()).as(result.format()).isZero();
        }
      }
    }
  }
}
