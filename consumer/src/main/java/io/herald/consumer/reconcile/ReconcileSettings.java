package io.herald.consumer.reconcile;

import java.time.Duration;
import java.util.Objects;

/**
 * How the reconciler works: the {@code consumer.reconcile.*} keys, each field named after its key
 * and validated by {@code ConsumerConfig}. Immutable.
 *
 * @param gracePeriod {@code grace-period}: how long after an uncertain attempt a destination with a
 *     lookup is asked, so its "not found" is trusted: longer than the API can take to process a
 *     request it has accepted
 * @param interval {@code interval}: pause between reconciliation rounds
 * @param batchSize {@code batch-size}: deliveries handled per destination and statement
 * @param lookupRetry {@code lookup-retry}: pause before a lookup that got no answer is tried again
 */
public record ReconcileSettings(
    Duration gracePeriod, Duration interval, int batchSize, Duration lookupRetry) {

  public ReconcileSettings {
    Objects.requireNonNull(gracePeriod, "gracePeriod");
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(lookupRetry, "lookupRetry");
  }
}
