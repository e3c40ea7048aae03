package io.herald.relay.engine;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.herald.relay.health.RelayStatus;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
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

  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final CompletableFuture<Void> completion = new CompletableFuture<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread thread;

  public RelayEngine(
      EngineProperties properties,
      DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> sink,
      RelayStatus status) {
    this.engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(properties.toProperties())
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
    this.thread = Thread.ofPlatform().name("herald-relay-engine").unstarted(engine);
  }

  public synchronized void start() {
    if (!closed.get() && started.compareAndSet(false, true)) {
      thread.start();
    }
  }

  /** Completes when the engine has stopped; exceptionally when it stopped on an error. */
  public CompletableFuture<Void> completion() {
    return completion;
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      engine.close();
      if (!started.get()) {
        completion.complete(null);
      }
    }
  }
}
