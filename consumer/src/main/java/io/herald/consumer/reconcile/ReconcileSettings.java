package io.herald.consumer.reconcile;

import java.time.Duration;
import java.util.Objects;

/**
 * How the reconciler works.
 *
 * @param interval pause between reconciliation rounds
 * @param batchSize deliveries handled per destination and round
 * @param lookupRetry pause before a lookup that got no answer is tried again
 */
public record ReconcileSettings(Duration interval, int batchSize, Duration lookupRetry) {

  public ReconcileSettings {
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(lookupRetry, "lookupRetry");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "consumer.reconcile.interval must be positive: " + interval);
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException(
          "consumer.reconcile.batch-size must be at least 1: " + batchSize);
    }
  }
}
