package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The demo's core as it runs from {@code ./demo.sh}: the three processes as separate OS processes,
 * intents from concurrent clients through accept-then-timeout faults at the three kinds of
 * destination, one publication resolved by an operator with {@code herald deliveries resolve}, and
 * a clean {@code herald audit} at the end. {@code -Dherald.showcase.intents} sets the count
 * (default 500; the demo sends 2000).
 */
@HeraldIntegrationTest
class ShowcaseIT {

  @Test
  void shouldEndInACleanAuditWithEveryUncertainPublicationSettled(StackContext stack)
      throws Exception {
    int intents = Integer.getInteger("herald.showcase.intents", 500);
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = TestPipelines.settings(stack, simulator, "showcase-it-logs");
      Showcase.Result result;
      try (Pipeline pipeline = Pipeline.start(settings, Showcase.OVERRIDES)) {
        result =
            new Showcase(pipeline, simulator, Path.of("target", "showcase-it"), System.out)
                .run(intents, Duration.ofMinutes(4));
      }

      assertThat(result.statuses().get(201)).isEqualTo(intents);
      assertThat(result.statuses().get(200)).isEqualTo(intents / 10);
      assertThat(result.statuses().get(409)).isEqualTo(intents / 25);
      assertThat(result.resolved()).isEqualTo(1);
      assertThat(result.auditExit()).as(result.auditSummary()).isZero();
      assertThat(result.auditSummary())
          .startsWith("audit: lost=0 duplicate_remote_articles=0 missing_remote_articles=0")
          .contains(" uncertain=0 ", " needs_reconciliation=0 ")
          .endsWith("-> OK");
      assertThat(result.ok()).isTrue();
      assertThat(simulator.articles()).hasSize(intents);
    }
  }
}
