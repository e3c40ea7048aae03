package io.herald.relay.recover;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The last record of one partition of an events topic, as the recovery reads it.
 *
 * @param partition the partition
 * @param offset the record's offset
 * @param eventId its {@code id} header (the outbox row id); empty when it has none
 * @param timestamp its Kafka timestamp
 */
public record PartitionTail(int partition, long offset, Optional<UUID> eventId, Instant timestamp) {

  @Override
  public String toString() {
    return "partition "
        + partition
        + " offset "
        + offset
        + " (event "
        + eventId.map(UUID::toString).orElse("without an id header")
        + ", written "
        + timestamp
        + ")";
  }
}
