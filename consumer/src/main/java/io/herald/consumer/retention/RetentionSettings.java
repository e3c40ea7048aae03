package io.herald.consumer.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the consumer keeps what it no longer needs.
 *
 * @param inbox inbox rows older than this are purged: must exceed any window in which Kafka may
 *     redeliver a record (consumer-group offsets retention, relay replays), or a late redelivery
 *     would be treated as new (harmless for an existing delivery, which the business key still
 *     deduplicates, but no longer for a purged one)
 * @param finishedDeliveries PUBLISHED, FAILED and ABANDONED deliveries older than this are purged
 * @param outbox status events older than this are purged ({@code 0}: deleted when written)
 * @param interval pause between purge rounds
 * @param batchSize rows deleted per statement, so no purge holds long locks
 */
public record RetentionSettings(
    Duration inbox,
    Duration finishedDeliveries,
    Duration outbox,
    Duration interval,
    int batchSize) {

  public RetentionSettings {
    Objects.requireNonNull(inbox, "inbox");
    Objects.requireNonNull(finishedDeliveries, "finishedDeliveries");
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(interval, "interval");
    if (inbox.isNegative() || finishedDeliveries.isNegative() || outbox.isNegative()) {
      throw new IllegalArgumentException("consumer.retention.* must not be negative");
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "consumer.retention.interval must be positive: " + interval);
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException(
          "consumer.retention.batch-size must be at least 1: " + batchSize);
    }
  }
}
