package io.herald.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.demo.Pipeline;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The runner itself, against a real pipeline: what it does when a process dies on its own. */
@HeraldIntegrationTest
class FaultRunnerIT {

  @Test
  void shouldFailTheRoundAtOnceNamingAProcessThatExitedWithoutBeingRestarted(StackContext stack)
      throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    FaultRunner runner =
        new FaultRunner(
            stack,
            new KillsTheConsumerAndLeavesItDead(),
            // A settle timeout far above the time to notice: waiting it out is the defect.
            new FaultRunner.Settings(1, 42, 150, Duration.ofSeconds(6), Duration.ofMinutes(3)),
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<RoundReport> reports = runner.run();

    assertThat(reports).hasSize(1);
    RoundReport report = reports.get(0);
    String output = printed.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(report.ok()).as(output).isFalse();
    // Noticed right after the injection that killed it, before the load asked for another.
    assertThat(report.faults()).as(output).containsExactly("SIGKILL consumer, not restarted");
    assertThat(report.failure())
        .as(output)
        .startsWith("consumer (pid ")
        .contains("consumer.log")
        .contains("has exited with code 137; the last lines of its log:")
        .endsWith("(not restarted by FX)");
    assertThat(report.checked()).as("no check after a failed round").isNull();
  }

  /** A fault class that breaks its contract: it ends the consumer and does not heal it. */
  private static final class KillsTheConsumerAndLeavesItDead implements FaultClass {

    @Override
    public String id() {
      return "FX";
    }

    @Override
    public String description() {
      return "SIGKILL the consumer and leave it dead: the runner must fail the round at once";
    }

    @Override
    public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
        throws Exception {
      pipeline.process("consumer").kill();
      return "SIGKILL consumer, not restarted";
    }
  }
}
