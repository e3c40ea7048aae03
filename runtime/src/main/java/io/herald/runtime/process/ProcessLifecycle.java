package io.herald.runtime.process;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ordered shutdown of a process: components are registered as they start and closed in reverse
 * order (last started, first closed, as try-with-resources does), each close in its own try/catch
 * so one failure never skips the rest, each logged with its duration. SIGTERM/SIGINT trigger it
 * through a JVM shutdown hook.
 *
 * <pre>{@code
 * ProcessLifecycle lifecycle = ProcessLifecycle.start("writer");
 * HikariDataSource pool = lifecycle.register("database pool", Databases.pool(...));
 * OpsServer ops = lifecycle.register("http server", OpsServer.builder(...).start());
 * lifecycle.awaitShutdown(); // main thread blocks until SIGTERM
 * }</pre>
 *
 * <p>Thread-safe. The state moves RUNNING -> STOPPING -> STOPPED by compare-and-set, so {@link
 * #close()} runs once however many threads call it; registering while stopping closes the component
 * at once.
 */
public final class ProcessLifecycle implements AutoCloseable {

  /** Lifecycle states. */
  public enum State {
    RUNNING,
    STOPPING,
    STOPPED
  }

  private static final Logger log = LoggerFactory.getLogger(ProcessLifecycle.class);

  private final String process;
  private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
  private final Deque<Named> components = new ArrayDeque<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Thread shutdownHook;

  private record Named(String name, AutoCloseable closeable) {}

  private ProcessLifecycle(String process) {
    this.process = Objects.requireNonNull(process, "process");
  }

  /** A lifecycle without a shutdown hook (tests, embedding). */
  public static ProcessLifecycle create(String process) {
    return new ProcessLifecycle(process);
  }

  /** A lifecycle whose {@link #close()} runs on SIGTERM/SIGINT (JVM shutdown hook). */
  public static ProcessLifecycle start(String process) {
    ProcessLifecycle lifecycle = new ProcessLifecycle(process);
    Thread hook = new Thread(lifecycle::closeFromHook, process + "-shutdown");
    lifecycle.shutdownHook = hook;
    Runtime.getRuntime().addShutdownHook(hook);
    return lifecycle;
  }

  /**
   * Registers {@code component} to be closed at shutdown, before everything registered earlier.
   *
   * @return {@code component}, for one-line use
   */
  public <T extends AutoCloseable> T register(String name, T component) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(component, "component");
    synchronized (components) {
      if (state.get() == State.RUNNING) {
        components.push(new Named(name, component));
        return component;
      }
    }
    log.warn("{}: {} registered while {}; closing it now", process, name, state.get());
    closeOne(new Named(name, component));
    return component;
  }

  public State state() {
    return state.get();
  }

  /** Blocks until {@link #close()} has finished (the main thread of a process waits here). */
  public void awaitShutdown() throws InterruptedException {
    stopped.await();
  }

  /** Closes every component, last registered first. Idempotent; later calls return at once. */
  @Override
  public void close() {
    if (!state.compareAndSet(State.RUNNING, State.STOPPING)) {
      return;
    }
    long start = System.nanoTime();
    log.info("{}: shutting down", process);
    while (true) {
      Named next;
      synchronized (components) {
        next = components.poll();
      }
      if (next == null) {
        break;
      }
      closeOne(next);
    }
    state.set(State.STOPPED);
    stopped.countDown();
    removeHook();
    log.info("{}: stopped in {} ms", process, (System.nanoTime() - start) / 1_000_000);
  }

  private void closeFromHook() {
    // Running inside the hook: removing it would throw IllegalStateException.
    shutdownHook = null;
    close();
  }

  private void removeHook() {
    Thread hook = shutdownHook;
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down: the hook is running or ran; nothing to remove.
        log.debug("{}: shutdown hook not removed, JVM already shutting down", process, e);
      }
    }
  }

  private void closeOne(Named component) {
    long start = System.nanoTime();
    try {
      component.closeable().close();
      log.info(
          "{}: closed {} in {} ms",
          process,
          component.name(),
          (System.nanoTime() - start) / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.error("{}: interrupted while closing {}", process, component.name(), e);
    } catch (Exception | Error e) {
      log.error("{}: failed to close {}; continuing with the rest", process, component.name(), e);
    }
  }
}
