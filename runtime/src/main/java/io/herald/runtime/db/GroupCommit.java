package io.herald.runtime.db;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

/**
 * Group commit: items that callers submit while other items are being committed are committed
 * together, in one transaction, each caller still getting its own item's result. The writer groups
 * single publication requests with it, the consumer the results of its calls.
 *
 * <p>No thread of its own and no timer: a caller that finds fewer than {@code maxInFlight} groups
 * being committed commits at once, with whatever else is queued (up to {@code maxItems}); one that
 * finds them all busy parks until a committer finishes, which wakes the caller at the head of the
 * queue to commit the next group. So a lone item never waits for company, a caller commits groups
 * only until its own item is done (none serves the others for long), items are taken first in,
 * first out, and the queue holds at most one item per waiting caller.
 *
 * <p>A failed group is committed again one item at a time when {@code tryAlone} says the failure
 * may be one item's (a constraint, a program error), so that one bad item fails only its own
 * caller; otherwise (the database unavailable) every caller of the group gets the failure. When
 * {@code failsQueued} says such a failure would meet the callers still queued too, they get it at
 * once as well, without a transaction of their own: each then waits for an unavailable database
 * once (the writer's requests, which owe their clients a prompt 503), not once per group ahead of
 * it.
 *
 * <p>A caller waits uninterruptibly, as a plain commit would, and keeps its interrupt status: the
 * consumer records the result of a call its lease keeper cancelled.
 *
 * <p>Thread-safe.
 *
 * @param <T> what a caller submits
 * @param <R> what it gets back
 * @param <E> the checked failure of a commit ({@link RuntimeException} for none)
 */
public final class GroupCommit<T, R, E extends Exception> {

  /** Commits a group in one transaction. */
  @FunctionalInterface
  public interface Committer<T, R, E extends Exception> {

    /**
     * @return one result per item, in the order given
     * @throws E nothing of the group was committed
     */
    List<R> commit(List<T> items) throws E;
  }

  /** A guard against a lost wake-up: how long a parked caller waits before it looks again. */
  private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** An item and its caller; its answer is set once, by whichever caller commits its group. */
  private static final class Pending<T, R> {
    private final T item;
    private final Thread caller;
    private volatile boolean done;
    private R result;
    private Exception failure;

    private Pending(T item, Thread caller) {
      this.item = item;
      this.caller = caller;
    }

    private void complete(R value) {
      result = value;
      done = true; // the volatile write publishes result
      LockSupport.unpark(caller);
    }

    private void fail(Exception e) {
      failure = e;
      done = true;
      LockSupport.unpark(caller);
    }
  }

  private final Committer<T, R, E> committer;
  private final int maxItems;
  private final Semaphore committers;
  private final Predicate<Exception> tryAlone;
  private final Predicate<Exception> failsQueued;
  private final IntConsumer groupSizes;
  private final ConcurrentLinkedQueue<Pending<T, R>> queue = new ConcurrentLinkedQueue<>();

  /**
   * @param maxItems most items in one transaction; 1 commits each alone
   * @param maxInFlight most transactions at once
   * @param tryAlone whether a group that failed with this is committed again item by item
   * @param failsQueued whether a group's failure that is not tried alone also fails the items
   *     queued when it ends (it would meet them too)
   * @param groupSizes told the size of each group committed (a metric)
   */
  public GroupCommit(
      Committer<T, R, E> committer,
      int maxItems,
      int maxInFlight,
      Predicate<Exception> tryAlone,
      Predicate<Exception> failsQueued,
      IntConsumer groupSizes) {
    if (maxItems < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException(
          "maxItems and maxInFlight must be at least 1, were " + maxItems + ", " + maxInFlight);
    }
    this.committer = Objects.requireNonNull(committer, "committer");
    this.maxItems = maxItems;
    this.committers = new Semaphore(maxInFlight);
    this.tryAlone = Objects.requireNonNull(tryAlone, "tryAlone");
    this.failsQueued = Objects.requireNonNull(failsQueued, "failsQueued");
    this.groupSizes = Objects.requireNonNull(groupSizes, "groupSizes");
  }

  /**
   * Commits {@code item}, in a transaction it may share with items of concurrent callers; returns
   * once that transaction has committed.
   *
   * @return the committer's result for this item
   * @throws E the transaction that held this item failed
   */
  public R submit(T item) throws E {
    Pending<T, R> mine =
        new Pending<>(Objects.requireNonNull(item, "item"), Thread.currentThread());
    queue.add(mine);
    boolean interrupted = false;
    while (!mine.done) {
      if (!queue.isEmpty() && committers.tryAcquire()) {
        try {
          commit(take());
        } finally {
          committers.release();
          // After the release: a caller that found every slot taken was queued before its
          // attempt, so this sees it (or sees it taken), and it is not left parked until the
          // recheck.
          Pending<T, R> head = queue.peek();
          if (head != null) {
            LockSupport.unpark(head.caller);
          }
        }
      } else {
        LockSupport.parkNanos(this, RECHECK_NANOS);
        // Cleared so the park does not spin; restored below.
        interrupted |= Thread.interrupted();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return answer(mine);
  }

  /** Items waiting for their group. */
  public int queued() {
    return queue.size();
  }

  @SuppressWarnings("unchecked") // commit throws only E or unchecked exceptions
  private R answer(Pending<T, R> mine) throws E {
    if (mine.failure == null) {
      return mine.result;
    }
    if (mine.failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw (E) mine.failure;
  }

  private List<Pending<T, R>> take() {
    List<Pending<T, R>> group = new ArrayList<>();
    Pending<T, R> next;
    while (group.size() < maxItems && (next = queue.poll()) != null) {
      group.add(next);
    }
    return group;
  }

  /**
   * Commits {@code group} and answers every caller in it, whatever happens: a caller left without
   * an answer would park forever.
   */
  private void commit(List<Pending<T, R>> group) {
    Throwable thrown = null;
    try {
      commitOrRetry(group);
    } catch (RuntimeException | Error e) {
      // Not the committer's failure (that is an answer): a bug or the JVM's; it goes on.
      thrown = e;
      throw e;
    } finally {
      for (Pending<T, R> pending : group) {
        if (!pending.done) {
          pending.fail(
              new IllegalStateException(
                  "a group commit ended without an answer: " + thrown, thrown));
        }
      }
    }
  }

  private void commitOrRetry(List<Pending<T, R>> group) {
    if (group.isEmpty()) {
      return;
    }
    List<T> items = new ArrayList<>(group.size());
    group.forEach(pending -> items.add(pending.item));
    List<R> results;
    try {
      results = committer.commit(items);
    } catch (Exception e) {
      if (!tryAlone.test(e)) {
        group.forEach(pending -> pending.fail(e));
        if (failsQueued.test(e)) {
          Pending<T, R> queued;
          while ((queued = queue.poll()) != null) {
            queued.fail(e);
          }
        }
        return;
      }
      if (group.size() == 1) {
        group.getFirst().fail(e);
        return;
      }
      for (Pending<T, R> pending : group) {
        commit(List.of(pending));
      }
      return;
    }
    if (results == null || results.size() != group.size()) {
      IllegalStateException wrong =
          new IllegalStateException(
              "a group commit answered "
                  + (results == null ? "null" : results.size() + " results")
                  + " for "
                  + group.size());
      group.forEach(pending -> pending.fail(wrong));
      return;
    }
    for (int i = 0; i < group.size(); i++) {
      group.get(i).complete(results.get(i));
    }
    groupSizes.accept(group.size());
  }
}
