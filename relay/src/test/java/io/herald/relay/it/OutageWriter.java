package io.herald.relay.it;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Commits outbox transactions on its own thread, as a writer in production does, through a database
 * outage: a transaction that fails is tried again with new rows after a short pause. Rows of a
 * transaction whose commit was acknowledged are <em>acknowledged</em>; rows of one that failed are
 * <em>uncertain</em> (the commit may have taken effect before the connection broke), so they may
 * arrive in Kafka but need not.
 */
final class OutageWriter implements AutoCloseable {

  private static final long PAUSE_AFTER_FAILURE_MILLIS = 100;

  private final List<UUID> acknowledged = new ArrayList<>();
  private final Set<UUID> uncertain = new HashSet<>();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final CompletableFuture<List<UUID>> done;

  OutageWriter(OutboxRows rows, int total, int perTransaction, long pauseMillis) {
    done =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                while (!stop.get() && acknowledged() < total) {
                  List<UUID> ids = new ArrayList<>();
                  for (int i = 0; i < Math.min(perTransaction, total - acknowledged()); i++) {
                    ids.add(UUID.randomUUID());
                  }
                  try {
                    rows.insertInOneTransaction(ids);
                    synchronized (this) {
                      acknowledged.addAll(ids);
                    }
                    Thread.sleep(pauseMillis);
                  } catch (SQLException e) {
                    synchronized (this) {
                      uncertain.addAll(ids);
                    }
                    failures.incrementAndGet();
                    Thread.sleep(PAUSE_AFTER_FAILURE_MILLIS);
                  }
                }
                synchronized (this) {
                  return List.copyOf(acknowledged);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("outage writer interrupted", e);
              }
            });
  }

  synchronized int acknowledged() {
    return acknowledged.size();
  }

  /** Transactions that failed (the database was away). */
  int failures() {
    return failures.get();
  }

  synchronized Set<UUID> uncertain() {
    return Set.copyOf(uncertain);
  }

  /** Waits until every row is written and acknowledged; returns the acknowledged ids. */
  List<UUID> finish() throws Exception {
    return done.get(5, TimeUnit.MINUTES);
  }

  @Override
  public void close() throws Exception {
    stop.set(true);
    done.get(1, TimeUnit.MINUTES);
  }
}
