package io.herald.cli.monitor;

import java.time.Instant;

/**
 * What the monitor reads from Kafka in one sample, from end offsets and at most the last records of
 * a partition, never a whole topic. Immutable.
 *
 * @param publicationEventsEnd the sum of the publication-events topic's end offsets (0 when the
 *     topic does not exist yet)
 * @param consumerLag records of that topic the consumer group has not committed: per partition the
 *     end offset minus the committed one (minus the earliest offset where the group has none); null
 *     when no group is configured
 * @param dlqEnd the sum of the dead-letter topic's end offsets
 * @param dlqRecords records the dead-letter topic holds now: end minus earliest offsets
 * @param lastDlq the timestamp of the newest dead letter, or null
 * @param lastHeartbeat the timestamp of the newest record on the heartbeat topic, or null (Herald's
 *     relay writes none there; the view then falls back to the relay's last batch)
 */
record KafkaFacts(
    long publicationEventsEnd,
    Long consumerLag,
    long dlqEnd,
    long dlqRecords,
    Instant lastDlq,
    Instant lastHeartbeat) {}
