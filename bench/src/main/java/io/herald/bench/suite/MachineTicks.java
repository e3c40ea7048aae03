package io.herald.bench.suite;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time of all the machine's cores so far, from the first line of {@code /proc/stat}
 * (Linux), in clock ticks: what a phase's shares of the whole machine are read from.
 *
 * <p>Steal is time a virtual machine's cores were ready to run but the host ran another guest. On a
 * shared host it comes and goes by the minute, and a latency phase that meets it measures the host:
 * a B2 run in session 31 had 20 % of both cores stolen through one side's live phase, whose p99 was
 * three times its later rounds' (docs/benchmarks-history.md, session 31).
 *
 * @param busy ticks neither idle nor waiting for I/O (steal included)
 * @param steal ticks the host gave to other guests
 * @param total all ticks
 */
public record MachineTicks(long busy, long steal, long total) {

  /** A reading now. */
  public static MachineTicks now() {
    String[] f;
    // The first line only: the rest (a line per core, the interrupt counts) is read for nothing.
    try (BufferedReader stat = Files.newBufferedReader(Path.of("/proc/stat"))) {
      f = stat.readLine().trim().split("\\s+");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read /proc/stat", e);
    }
    // cpu user nice system idle iowait irq softirq steal [guest guest_nice]; guest time is already
    // counted in user, so the total stops at steal.
    long total = 0;
    for (int i = 1; i <= 8 && i < f.length; i++) {
      total += Long.parseLong(f[i]);
    }
    long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
    long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
    return new MachineTicks(total - idle, steal, total);
  }

  /** The share of all cores' time since {@code earlier} that was busy, in %. */
  public double busyPercentSince(MachineTicks earlier) {
    return 100.0 * (busy - earlier.busy) / Math.max(1, total - earlier.total);
  }

  /**
   * The share of all cores' time since {@code earlier} that the host gave to other guests, in %.
   */
  public double stealPercentSince(MachineTicks earlier) {
    return 100.0 * (steal - earlier.steal) / Math.max(1, total - earlier.total);
  }
}
