package io.herald.consumer.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the consumer keeps what it no longer needs; each field named after its key and validated
 * by {@code ConsumerConfig}. Immutable.
 *
 * @param inboxRetention {@code consumer.inbox.retention}: inbox rows older than this are purged; at
 *     least {@code consumer.inbox.redelivery-window}, or a late redelivery would be treated as new
 *     (harmless for an existing delivery, which the business key still deduplicates, but no longer
 *     for a purged one)
 * @param deliveryRetention {@code consumer.delivery.retention}: PUBLISHED, FAILED and ABANDONED
 *     deliveries older than this are purged
 * @param outboxRetention status events older than this are purged: {@code
 *     consumer.outbox.keep-days} when {@code consumer.outbox.retention} is {@code keep}, {@code 0}
 *     when it is {@code delete-immediately} (the row is deleted when written)
 * @param purgeInterval {@code consumer.purge.interval}: pause between purge rounds
 * @param purgeBatchSize {@code consumer.outbox.purge-batch-size}: rows deleted per statement, in
 *     every table, so no purge holds long locks
 */
public record RetentionSettings(
    Duration inboxRetention,
    Duration deliveryRetention,
    Duration outboxRetention,
    Duration purgeInterval,
    int purgeBatchSize) {

  public RetentionSettings {
    Objects.requireNonNull(inboxRetention, "inboxRetention");
    Objects.requireNonNull(deliveryRetention, "deliveryRetention");
    Objects.requireNonNull(outboxRetention, "outboxRetention");
    Objects.requireNonNull(purgeInterval, "purgeInterval");
  }
}
