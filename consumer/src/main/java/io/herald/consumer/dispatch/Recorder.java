package io.herald.consumer.dispatch;

import io.herald.consumer.delivery.Completion;
import io.herald.consumer.delivery.DeliveryQueue;
import io.herald.consumer.delivery.DeliverySnapshot;
import io.herald.runtime.db.SqlFailure;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records the dispatcher's results in groups (group commit): a worker queues its result and takes
 * the recording lock; whoever holds it records everything queued meanwhile, up to {@code
 * batchSize}, in one transaction ({@link DeliveryQueue#completeAll}), so a worker often finds its
 * result already recorded when its turn comes. Alone, a result is recorded at once, in a
 * transaction of its own, as before: grouping adds no wait, it only shares the transactions that
 * were waiting anyway.
 *
 * <p>Each result in a group is still fenced by its own claim token: a fenced one is discarded, the
 * others recorded. A group the database refuses for a reason a retry would not cure (a constraint,
 * a program error) is recorded again one result per transaction, so that one bad result fails only
 * itself; an unavailable database fails the whole group at once (each result's claim then expires
 * and is reconciled, as for a single result).
 *
 * <p>No thread of its own: the workers record, one group at a time. Bounded: at most one queued
 * result per worker. Thread-safe.
 */
final class Recorder {

  private final DeliveryQueue deliveries;
  private final int batchSize;
  private final ConcurrentLinkedQueue<Pending> queued = new ConcurrentLinkedQueue<>();
  private final ReentrantLock recording = new ReentrantLock();

  /** A result waiting for its group; its answer is set under the recording lock. */
  private static final class Pending {
    private final Completion completion;
    private boolean done;
    private Optional<DeliverySnapshot> recorded;
    private Exception failure;

    private Pending(Completion completion) {
      this.completion = completion;
    }
  }

  /**
   * @param batchSize the most results one transaction records ({@code
   *     consumer.dispatch.record-batch-size}); 1 records each result in its own transaction
   */
  Recorder(DeliveryQueue deliveries, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1: " + batchSize);
    }
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.batchSize = batchSize;
  }

  /**
   * Records {@code completion}, in a group with whatever else is queued.
   *
   * @return as {@link DeliveryQueue#complete}: the delivery after the transition, or empty when its
   *     claim was fenced off
   * @throws SQLException when its transaction failed (nothing of it was recorded)
   */
  Optional<DeliverySnapshot> record(Completion completion) throws SQLException {
    Pending mine = new Pending(completion);
    queued.add(mine);
    recording.lock();
    try {
      // Results queued ahead of this one are recorded first: the queue is first in, first out.
      while (!mine.done) {
        List<Pending> group = drain();
        if (group.isEmpty()) {
          throw new IllegalStateException("A queued result was taken but never recorded");
        }
        recordGroup(group);
      }
    } finally {
      recording.unlock();
    }
    if (mine.failure instanceof SQLException e) {
      throw e;
    }
    if (mine.failure instanceof RuntimeException e) {
      throw e;
    }
    return mine.recorded;
  }

  /** Results waiting for their group. */
  int queued() {
    return queued.size();
  }

  private List<Pending> drain() {
    List<Pending> group = new ArrayList<>(batchSize);
    Pending next;
    while (group.size() < batchSize && (next = queued.poll()) != null) {
      group.add(next);
    }
    return group;
  }

  private void recordGroup(List<Pending> group) {
    List<Completion> completions = new ArrayList<>(group.size());
    group.forEach(pending -> completions.add(pending.completion));
    try {
      List<Optional<DeliverySnapshot>> recorded = deliveries.completeAll(completions);
      for (int i = 0; i < group.size(); i++) {
        group.get(i).recorded = recorded.get(i);
        group.get(i).done = true;
      }
    } catch (SQLException e) {
      if (group.size() == 1 || SqlFailure.classify(e) == SqlFailure.UNAVAILABLE) {
        fail(group, e);
        return;
      }
      // One result may be what the database refuses: each alone, so it fails only itself.
      for (Pending pending : group) {
        recordGroup(List.of(pending));
      }
    } catch (RuntimeException e) {
      fail(group, e);
    }
  }

  private static void fail(List<Pending> group, Exception failure) {
    for (Pending pending : group) {
      pending.failure = failure;
      pending.done = true;
    }
  }
}
