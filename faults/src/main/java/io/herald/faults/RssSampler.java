package io.herald.faults;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Samples the RSS of some processes every {@link #INTERVAL_MILLIS} in one thread it owns, from
 * construction to {@link #close()}, and keeps each one's peak. Thread-safe.
 */
final class RssSampler implements AutoCloseable {

  private static final long INTERVAL_MILLIS = 100;

  private final Map<String, Long> pids;
  private final Map<String, Long> peaks = new LinkedHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  /** Starts sampling {@code pids} (process name to pid). */
  RssSampler(Map<String, Long> pids) {
    this.pids = Map.copyOf(pids);
    sample();
    this.thread = Thread.ofPlatform().daemon().name("herald-faults-rss").start(this::run);
  }

  private void run() {
    while (running) {
      sample();
      try {
        TimeUnit.MILLISECONDS.sleep(INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        // close() interrupts the sleep: stop sampling.
        return;
      }
    }
  }

  private synchronized void sample() {
    pids.forEach(
        (name, pid) -> Rss.kibibytes(pid).ifPresent(kib -> peaks.merge(name, kib, Math::max)));
  }

  /** Each process's peak RSS so far in KiB; a process never sampled (gone) is absent. */
  synchronized Map<String, Long> peaksKibibytes() {
    return Map.copyOf(peaks);
  }

  /** Stops the thread and takes a last sample. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(TimeUnit.SECONDS.toMillis(5));
    sample();
  }
}
