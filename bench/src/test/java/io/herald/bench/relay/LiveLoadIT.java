package io.herald.bench.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.relay.it.RelayFixture;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The live load counts what arrived and cannot pass a pipeline that lost rows: a row that never
 * reaches the topic fails the load instead of shrinking its histogram.
 */
@HeraldIntegrationTest
class LiveLoadIT {

  /** One per class: the class's topics are made once. */
  private static RelayFixture fixture;

  @BeforeAll
  static void fixture(StackContext context) {
    fixture = new RelayFixture(context, "live-load");
  }

  @Test
  void shouldFailNamingTheRowsThatNeverArrived() {
    // No relay runs in this test: nothing tails the outbox into the topic.

    assertThatThrownBy(() -> LiveLoad.offer(fixture, 100, 20, 0, () -> 0.0, Duration.ofSeconds(3)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("20 of 20 committed rows did not reach the read_committed reader");
  }

  @Test
  void shouldCountTheRowsAfterTheWarmUpAndTheCpuOfTheirWindow(StackContext context)
      throws Exception {
    String slot = context.slot();
    try (RelayFixture.Relay relay = RelayServerLimitBenchmark.startRelay(fixture, slot)) {
      // Streaming once a probe row has arrived.
      long onTopic = Backlog.records(context.bootstrapServers(), fixture.publicationEvents);
      Backlog.load(fixture.dataSource(), 1, 1);
      Backlog.awaitRecords(
          context.bootstrapServers(),
          fixture.publicationEvents,
          onTopic + 1,
          Duration.ofMinutes(2));

      LiveLoad.Latencies latencies =
          LiveLoad.offer(
              fixture,
              100,
              300,
              1,
              () -> RelayServerLimitBenchmark.sample(relay.pid()).cpuSeconds(),
              Duration.ofMinutes(1));

      // Rows 100 to 299 are due a second or more after the first; the first commit's own delay
      // may move a row at the boundary into the warm-up.
      assertThat(latencies.countedEvents()).isBetween(195L, 200L);
      assertThat(latencies.acknowledgedMicros().getTotalCount())
          .isEqualTo(latencies.countedEvents());
      assertThat(latencies.worstPerSecond()).containsKeys(0, 1, 2);
      assertThat(latencies.countedCpuSeconds()).isPositive();
    }
  }
}
