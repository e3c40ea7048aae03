package io.herald.relay.recover;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a recovery did (or, in a dry run, would do).
 *
 * @param slot the slot name
 * @param previousSlot the slot before the recovery: {@code missing}, {@code invalidated (reason)}
 *     or {@code usable}
 * @param consistentPoint the new slot's consistent point; empty in a dry run
 * @param outboxes one entry per retained outbox
 * @param offsetKeysRemoved engine offset keys removed from the offsets topic
 * @param dryRun nothing was changed
 */
public record RecoveryReport(
    String slot,
    String previousSlot,
    Optional<String> consistentPoint,
    List<Outbox> outboxes,
    int offsetKeysRemoved,
    boolean dryRun) {

  public RecoveryReport {
    outboxes = List.copyOf(outboxes);
  }

  /**
   * One outbox's replay.
   *
   * @param outbox the table
   * @param topic its events topic
   * @param lastInKafka the last record of each non-empty partition
   * @param republishFrom rows with {@code occurred_at} from this instant were (or would be)
   *     republished
   * @param republished how many rows that was
   */
  public record Outbox(
      String outbox,
      String topic,
      List<PartitionTail> lastInKafka,
      Instant republishFrom,
      long republished) {

    public Outbox {
      lastInKafka = List.copyOf(lastInKafka);
    }
  }
}
