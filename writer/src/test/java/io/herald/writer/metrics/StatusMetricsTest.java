package io.herald.writer.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class StatusMetricsTest {

  private enum Outcome {
    APPLIED,
    UNKNOWN_JOB
  }

  private enum Other {
    APPLIED
  }

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final StatusMetrics metrics =
      new StatusMetrics(registry, Outcome.class, o -> o.name().toLowerCase(Locale.ROOT));

  private double events(String outcome) {
    return registry.get(StatusMetrics.EVENTS).tag("outcome", outcome).counter().count();
  }

  @Test
  void shouldRegisterEveryOutcomeAtZeroBeforeAnyEvent() {
    assertThat(events("applied")).isZero();
    assertThat(events("unknown_job")).isZero();
    assertThat(events("invalid")).isZero();
    assertThat(registry.get(StatusMetrics.FAILURES).counter().count()).isZero();
  }

  @Test
  void shouldCountEachOutcomeUnderItsTag() {
    metrics.outcome(Outcome.UNKNOWN_JOB);
    metrics.outcome(Outcome.UNKNOWN_JOB);
    metrics.invalid();
    metrics.failure();

    assertThat(events("unknown_job")).isEqualTo(2);
    assertThat(events("applied")).isZero();
    assertThat(events("invalid")).isEqualTo(1);
    assertThat(registry.get(StatusMetrics.FAILURES).counter().count()).isEqualTo(1);
  }

  @Test
  void shouldRefuseAnOutcomeOfAnotherEnumNamingIt() {
    assertThatThrownBy(() -> metrics.outcome(Other.APPLIED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("APPLIED");
  }
}
