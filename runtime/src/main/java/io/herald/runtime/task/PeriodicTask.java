package io.herald.runtime.task;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background loop that runs one bounded round, waits {@code interval}, and runs the next, on its
 * own thread, until {@link #close()}. It owns what every Herald background loop needs: the thread,
 * the pause, the stop, the logging of a failed round (with its cause; the next round tries again),
 * and a health signal ({@link #healthy(Duration)}).
 *
 * <p>The round must be bounded itself (a fixed number of batches); between batches it should check
 * {@link #stopping()} so {@link #close()} does not wait for a whole round.
 *
 * <pre>{@code
 * PeriodicTask purge =
 *     PeriodicTask.named("herald-outbox-purger")
 *         .every(Duration.ofMinutes(1))
 *         .firstAfter(Duration.ofMinutes(1))
 *         .onFailure(failures::increment)
 *         .build(purger::purgeOnce);
 * purge.start();
 * ...
 * purge.close(); // the current batch finishes, then the thread ends
 * }</pre>
 *
 * <p>Thread-safe: {@link #start()} once, {@link #close()} any number of times from any thread.
 */
public final class PeriodicTask implements AutoCloseable {

  /** One round of work; bounded. */
  @FunctionalInterface
  public interface Round {
    void run() throws Exception;
  }

  private static final Logger log = LoggerFactory.getLogger(PeriodicTask.class);

  private final String name;
  private final Duration interval;
  private final Duration firstAfter;
  private final Duration stopWait;
  private final boolean daemon;
  private final Runnable onFailure;
  private final Round round;
  private final Object signal = new Object();
  private final AtomicLong lastRoundStartNanos = new AtomicLong(System.nanoTime());
  private volatile boolean stopping;
  private Thread thread;

  private PeriodicTask(Builder builder, Round round) {
    this.name = builder.name;
    this.interval = Objects.requireNonNull(builder.interval, "interval (call every())");
    this.firstAfter = builder.firstAfter;
    this.stopWait = builder.stopWait;
    this.daemon = builder.daemon;
    this.onFailure = builder.onFailure;
    this.round = Objects.requireNonNull(round, "round");
  }

  /** A builder for a task whose thread is called {@code threadName} (also used in log lines). */
  public static Builder named(String threadName) {
    return new Builder(threadName);
  }

  /**
   * Starts the thread: the first round after {@code firstAfter}, then rounds {@code interval} apart
   * (from the end of one to the start of the next).
   *
   * @throws IllegalStateException if already started or closed
   */
  public synchronized void start() {
    if (thread != null || stopping) {
      throw new IllegalStateException(name + " already started or closed");
    }
    thread = Thread.ofPlatform().name(name).daemon(daemon).start(this::loop);
  }

  /** Whether {@link #close()} was called: a round should stop between its batches. */
  public boolean stopping() {
    return stopping;
  }

  /**
   * The health signal: started, not stopping, the thread alive, and a round started within {@code
   * maxSilence} (a round that hangs, or a thread that died, shows here).
   */
  public synchronized boolean healthy(Duration maxSilence) {
    return !stopping
        && thread != null
        && thread.isAlive()
        && System.nanoTime() - lastRoundStartNanos.get() < maxSilence.toNanos();
  }

  private void loop() {
    if (!pause(firstAfter)) {
      return;
    }
    while (!stopping) {
      lastRoundStartNanos.set(System.nanoTime());
      try {
        round.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        onFailure.run();
        log.error("{} round failed; the next round in {} tries again", name, interval, e);
      }
      if (!pause(interval)) {
        return;
      }
    }
  }

  /** Waits {@code duration} unless stopped first; false when the loop must end. */
  private boolean pause(Duration duration) {
    long deadline = System.nanoTime() + duration.toNanos();
    synchronized (signal) {
      long left;
      while (!stopping && (left = deadline - System.nanoTime()) > 0) {
        try {
          signal.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !stopping;
  }

  /**
   * Stops the loop: the current batch of the current round finishes (the round sees {@link
   * #stopping()}), waiting at most {@code stopWait}; after that the thread is interrupted.
   */
  @Override
  public void close() {
    Thread current;
    synchronized (this) {
      stopping = true;
      current = thread;
    }
    synchronized (signal) {
      signal.notifyAll();
    }
    if (current == null || current == Thread.currentThread()) {
      return;
    }
    try {
      current.join(stopWait);
      if (current.isAlive()) {
        log.warn("{} did not stop within {}; interrupting it", name, stopWait);
        current.interrupt();
      }
    } catch (InterruptedException e) {
      current.interrupt();
      Thread.currentThread().interrupt();
    }
  }

  /** Settings of a {@link PeriodicTask}; not thread-safe. */
  public static final class Builder {

    private final String name;
    private Duration interval;
    private Duration firstAfter = Duration.ZERO;
    private Duration stopWait = Duration.ofSeconds(30);
    private boolean daemon = true;
    private Runnable onFailure = () -> {};

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /** The pause between the end of one round and the start of the next; required, positive. */
    public Builder every(Duration interval) {
      this.interval = positive(interval, "interval");
      return this;
    }

    /** The wait before the first round; default none. */
    public Builder firstAfter(Duration delay) {
      Objects.requireNonNull(delay, "firstAfter");
      if (delay.isNegative()) {
        throw new IllegalArgumentException(name + ": firstAfter must not be negative: " + delay);
      }
      this.firstAfter = delay;
      return this;
    }

    /** How long {@link #close()} waits for the running round; default 30s. */
    public Builder stopWait(Duration stopWait) {
      this.stopWait = positive(stopWait, "stopWait");
      return this;
    }

    /**
     * Whether the thread is a daemon (default true): false keeps the JVM alive until the task is
     * closed.
     */
    public Builder daemon(boolean daemon) {
      this.daemon = daemon;
      return this;
    }

    /** Called (before the log line) after each failed round, e.g. to count it. */
    public Builder onFailure(Runnable onFailure) {
      this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
      return this;
    }

    /** The task running {@code round}; not started. */
    public PeriodicTask build(Round round) {
      return new PeriodicTask(this, round);
    }

    private Duration positive(Duration value, String what) {
      Objects.requireNonNull(value, what);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + ": " + what + " must be positive: " + value);
      }
      return value;
    }
  }
}
