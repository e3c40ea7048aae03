package io.herald.relay.it;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Commits outbox transactions on its own thread while the test kills and restarts relays, until
 * {@code total} rows are written or it is stopped.
 */
final class BackgroundWriter implements AutoCloseable {

  private final List<UUID> ids = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final CompletableFuture<List<UUID>> done;

  BackgroundWriter(OutboxRows rows, int total, int perTransaction, long pauseMillis) {
    done =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                while (!stop.get() && size() < total) {
                  List<UUID> written =
                      rows.insert(Math.min(perTransaction, total - size()), perTransaction);
                  synchronized (ids) {
                    ids.addAll(written);
                  }
                  if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                  }
                }
                return written();
              } catch (Exception e) {
                throw new IllegalStateException("background outbox writer failed", e);
              }
            });
  }

  int size() {
    synchronized (ids) {
      return ids.size();
    }
  }

  List<UUID> written() {
    synchronized (ids) {
      return List.copyOf(ids);
    }
  }

  /** Waits until every row is written; returns the ids. */
  List<UUID> finish() throws Exception {
    return done.get(5, TimeUnit.MINUTES);
  }

  @Override
  public void close() throws Exception {
    stop.set(true);
    done.get(1, TimeUnit.MINUTES);
  }
}
