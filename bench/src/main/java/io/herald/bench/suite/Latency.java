package io.herald.bench.suite;

import org.HdrHistogram.Histogram;

/**
 * The benchmarks' one way to keep latencies and read percentiles from them: an HdrHistogram of
 * microseconds, up to an hour at 3 significant digits. Its memory is fixed by that range (about 190
 * KiB), not by how many latencies it holds, so a long open-loop run cannot grow it; and each value
 * it reports is within 0.1 % of the exact one. Used by the open-loop loads of B1 and B2 ({@code
 * relay.LiveLoad}) and of B5 ({@code e2e.PublicationLoad}).
 *
 * <p>A {@link Histogram} is not thread-safe: each is recorded into by one thread, or handed over
 * once it is complete.
 */
public final class Latency {

  /** The highest latency a histogram holds: an hour, longer than any benchmark waits. */
  static final long HIGHEST_MICROS = 3_600_000_000L;

  private Latency() {}

  /** An empty histogram of latencies in microseconds. */
  public static Histogram histogram() {
    return new Histogram(HIGHEST_MICROS, 3);
  }

  /**
   * Records a latency of {@code nanos} nanoseconds into {@code micros}; a negative one (two clocks
   * a little apart) counts as 0.
   */
  public static void recordNanos(Histogram micros, long nanos) {
    micros.recordValue(Math.max(0, nanos) / 1_000);
  }

  /**
   * The {@code percentile} (0 to 100, as HdrHistogram counts) of {@code micros}, in milliseconds;
   * NaN when it holds no latency, so an empty run cannot print as 0 ms.
   */
  public static double ms(Histogram micros, double percentile) {
    return micros.getTotalCount() == 0 ? Double.NaN : micros.getValueAtPercentile(percentile) / 1e3;
  }

  /** The highest latency of {@code micros}, in milliseconds; NaN when it holds none. */
  public static double maxMs(Histogram micros) {
    return micros.getTotalCount() == 0 ? Double.NaN : micros.getMaxValue() / 1e3;
  }
}
