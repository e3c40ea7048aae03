package io.herald.relay.engine;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.herald.relay.debezium.SlotConfirmations;
import io.herald.relay.debezium.TaskHooks;
import io.herald.relay.health.RelayStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of Debezium's embedded (async) engine on its own thread, handing batches of {@link
 * SourceRecord}s to the sink.
 *
 * <p>{@link #completion()} completes when the engine stops: normally after {@link #close()},
 * exceptionally when it failed (the sink threw, the slot check inside Debezium failed, the database
 * went away for longer than the connector's retries). {@link #close()} is graceful: the engine
 * finishes the batch in hand and commits the offsets of every acknowledged record. Thread- safe.
 */
public final class RelayEngine implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RelayEngine.class);

  /** How often {@link #stop(Duration)} asks again while Debezium refuses to stop. */
  private static final Duration CLOSE_RETRY = Duration.ofMillis(200);

  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final CompletableFuture<Void> completion = new CompletableFuture<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private boolean closed;
  private final Thread thread;
  private final TaskHooks hooks;

  /**
   * @param confirmations told of each confirmation of a position to the slot (with the Debezium
   *     patches on; the stock task reports none)
   */
  public RelayEngine(
      EngineProperties properties,
      DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> sink,
      RelayStatus status,
      SlotConfirmations confirmations) {
    this.hooks = properties.patches().taskHooks(confirmations);
    // Registered for as long as the engine may (re)start its task: from start() until it stopped.
    completion.whenComplete((ignored, failure) -> hooks.close());
    Properties settings = properties.toProperties();
    settings.putAll(hooks.settings());
    this.engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(settings)
            .notifying(sink)
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    status.transition(RelayStatus.Phase.STARTING, RelayStatus.Phase.STREAMING);
                    log.info("Engine streaming from slot '{}'", properties.slotName());
                  }
                })
            .using(
                (success, message, error) -> {
                  if (success && error == null) {
                    log.info("Engine stopped: {}", message);
                    completion.complete(null);
                  } else {
                    completion.completeExceptionally(
                        error != null ? error : new IllegalStateException(message));
                  }
                })
            .build();
    properties.patches().patchEngine(engine, properties::get);
    this.thread = Thread.ofPlatform().name("herald-relay-engine").unstarted(engine);
  }

  public synchronized void start() {
    if (!closed && started.compareAndSet(false, true)) {
      hooks.open();
      thread.start();
    }
  }

  /** Completes when the engine has stopped; exceptionally when it stopped on an error. */
  public CompletableFuture<Void> completion() {
    return completion;
  }

  /**
   * Asks the engine to stop gracefully.
   *
   * @throws IllegalStateException while Debezium is (re)starting its task, when it refuses to stop
   *     ("Cannot stop engine while tasks are starting"); the engine then still runs, and the caller
   *     asks again ({@link #stop(Duration)} does)
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    if (started.get() && !completion.isDone()) {
      engine.close();
    } else {
      // Never started, or stopped already (failed): nothing to close; Debezium would refuse.
      completion.complete(null);
    }
    closed = true;
  }

  /**
   * Closes the engine and waits until it has stopped, asking again while Debezium refuses because
   * its task is (re)starting, which it does after a lost database connection. The relay starts no
   * other engine until this returns true, so one process never streams twice.
   *
   * @return whether the engine stopped within {@code timeout}
   */
  public boolean stop(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean loggedRefusal = false;
    while (true) {
      try {
        close();
        break;
      } catch (IllegalStateException | IOException e) {
        if (!loggedRefusal) {
          log.info("The engine refused to stop ({}); asking again until it does", e.toString());
          loggedRefusal = true;
        }
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(CLOSE_RETRY.toMillis());
    }
    try {
      completion.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      // Stopped all the same: an engine that fails on its way out is no longer running.
      log.info("The engine reported a failure as it stopped", e.getCause());
    } catch (TimeoutException e) {
      return false;
    }
    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    return !thread.isAlive();
  }
}
