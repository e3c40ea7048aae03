package io.herald.consumer.dispatch;

import io.herald.consumer.delivery.Completion;
import io.herald.consumer.delivery.DeliveryQueue;
import io.herald.consumer.delivery.Recorded;
import io.herald.runtime.db.GroupCommit;
import io.herald.runtime.db.SqlFailure;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;

/**
 * Records the dispatcher's results in groups ({@link GroupCommit}): results of calls that end while
 * another group is being recorded are recorded together, up to {@code batchSize}, in one
 * transaction ({@link DeliveryQueue#completeAll}), one group at a time. Alone, a result is recorded
 * at once, in a transaction of its own: grouping adds no wait, it only shares the transactions that
 * were waiting anyway.
 *
 * <p>Each result in a group is still fenced by its own claim token: a fenced one is discarded, the
 * others recorded. A group the database refuses for a reason a retry would not cure (a constraint,
 * a program error) is recorded again one result per transaction, so that one bad result fails only
 * itself; an unavailable database, or a failure that is not the database's, fails the whole group
 * at once (each result's claim then expires and is reconciled, as for a single result).
 *
 * <p>No thread of its own: the workers record. Bounded: at most one queued result per worker.
 * Thread-safe.
 */
final class Recorder {

  private final GroupCommit<Completion, Optional<Recorded>, SQLException> groups;

  /**
   * @param batchSize the most results one transaction records ({@code
   *     consumer.dispatch.record-batch-size}); 1 records each result in its own transaction
   */
  Recorder(DeliveryQueue deliveries, int batchSize) {
    Objects.requireNonNull(deliveries, "deliveries");
    // GroupCommit refuses a batch size below 1.
    this.groups =
        new GroupCommit<>(
            deliveries::completeAll,
            batchSize,
            1,
            failure ->
                failure instanceof SQLException e
                    && SqlFailure.classify(e) != SqlFailure.UNAVAILABLE,
            // A queued result still gets its transaction: the database may be back by then, and a
            // result not recorded costs its delivery a reconciliation.
            failure -> false,
            size -> {});
  }

  /**
   * Records {@code completion}, in a group with whatever else is queued.
   *
   * @return as {@link DeliveryQueue#completeAll}: the delivery after the transition, or empty when
   *     its claim was fenced off
   * @throws SQLException when its transaction failed (nothing of it was recorded)
   */
  Optional<Recorded> record(Completion completion) throws SQLException {
    return groups.submit(completion);
  }

  /** Results waiting for their group. */
  int queued() {
    return groups.queued();
  }
}
