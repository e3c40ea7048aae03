package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyTest {

  @Test
  void shouldReadPercentilesInMillisecondsWithinATenthOfAPercent() {
    Histogram micros = Latency.histogram();
    for (long ms = 1; ms <= 1_000; ms++) {
      Latency.recordNanos(micros, ms * 1_000_000);
    }

    assertThat(Latency.ms(micros, 50)).isCloseTo(500, within(0.5));
    assertThat(Latency.ms(micros, 99)).isCloseTo(990, within(1.0));
    assertThat(Latency.maxMs(micros)).isCloseTo(1_000, within(1.0));
  }

  @Test
  void shouldAnswerNaNNotZeroWhenNoLatencyWasRecorded() {
    Histogram empty = Latency.histogram();

    assertThat(Latency.ms(empty, 99)).isNaN();
    assertThat(Latency.maxMs(empty)).isNaN();
  }

  @Test
  void shouldCountANegativeLatencyAsZero() {
    Histogram micros = Latency.histogram();

    Latency.recordNanos(micros, -5_000);

    assertThat(micros.getTotalCount()).isEqualTo(1);
    assertThat(Latency.maxMs(micros)).isZero();
  }

  @Test
  void shouldKeepItsMemoryWhateverItHoldsUpToAnHour() {
    Histogram micros = Latency.histogram();
    int footprint = micros.getEstimatedFootprintInBytes();

    for (int i = 0; i < 100_000; i++) {
      Latency.recordNanos(micros, (i % 3_600) * 1_000_000_000L);
    }

    assertThat(micros.getEstimatedFootprintInBytes()).isEqualTo(footprint).isLessThan(256 << 10);
    assertThat(Latency.maxMs(micros)).isCloseTo(3_599_000, within(3_600.0));
  }

  @Test
  void shouldMergeRoundsIntoOneHistogram() {
    Histogram first = Latency.histogram();
    Histogram second = Latency.histogram();
    Latency.recordNanos(first, 2_000_000);
    Latency.recordNanos(second, 4_000_000);

    Histogram all = Latency.histogram();
    all.add(first);
    all.add(second);

    assertThat(all.getTotalCount()).isEqualTo(2);
    assertThat(Latency.maxMs(all)).isCloseTo(4, within(0.01));
  }
}
