package io.herald.bench.suite;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * What a scenario runs with: the mode, where its plots go, and the progress line. Each scenario
 * takes a database of its own on the run's one embedded stack ({@code StackContext.create}).
 */
public final class Bench {

  private final boolean quick;
  private final Path reportDir;
  private final PrintStream out;
  private long lastProgressNanos;

  Bench(boolean quick, Path reportDir, PrintStream out) {
    this.quick = quick;
    this.reportDir = reportDir;
    this.out = out;
  }

  /** Whether to run every scenario small (the whole suite in under three minutes). */
  public boolean quick() {
    return quick;
  }

  /** {@code full} in the normal run, {@code quick} in the quick one. */
  public <T> T pick(T full, T quickValue) {
    return quick ? quickValue : full;
  }

  /** The directory plots and the report go to (created). */
  public Path reportDir() {
    return reportDir;
  }

  /** A progress line: printed at most once a second unless {@code force}. */
  public synchronized void progress(String scenario, String line, boolean force) {
    long now = System.nanoTime();
    if (force || now - lastProgressNanos >= Duration.ofSeconds(1).toNanos()) {
      lastProgressNanos = now;
      out.printf("%s [%s] %s%n", Instant.now().toString().substring(11, 19), scenario, line);
    }
  }

  public PrintStream out() {
    return out;
  }
}
