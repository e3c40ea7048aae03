package io.herald.relay.recover;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Which retained outbox rows a recovery republishes, decided from the last record of every
 * partition of the outbox's topic: a pure function, so every case has a unit test.
 *
 * <p>The relay publishes in commit order and a restart re-sends from its stored offset, so what
 * reached Kafka is every event up to some point of the commit order plus, possibly, some after it.
 * The earliest of the partitions' last events is therefore a point before which everything reached
 * Kafka. Every retained row that may have committed after it is republished: the rows whose {@code
 * occurred_at} is at least that event's {@code occurred_at} minus {@code overlap}. A row is stamped
 * before its transaction commits, so a row committed after that event but stamped earlier is
 * covered as long as its transaction took less than {@code overlap}. Duplicates are fine (the inbox
 * absorbs them); a gap is not, so when a partition's last event is not among the retained rows the
 * window does not reach back to it and the plan is a refusal that says what is missing.
 *
 * @param outbox the outbox table ({@code writer.outbox})
 * @param topic its events topic
 * @param tails the last record of each non-empty partition
 * @param from republish rows with {@code occurred_at >= from}; empty when the plan is a refusal
 * @param refusal why nothing may be republished; empty when the plan can be carried out
 */
public record ReplayPlan(
    String outbox,
    String topic,
    List<PartitionTail> tails,
    Optional<Instant> from,
    Optional<String> refusal) {

  public ReplayPlan {
    tails = List.copyOf(tails);
    if (from.isPresent() == refusal.isPresent()) {
      throw new IllegalArgumentException("a plan has either a start or a refusal");
    }
  }

  /** What the outbox retains, as far as the plan needs it. */
  public record Retained(long rows, Optional<Instant> oldest, Map<UUID, Instant> occurredAt) {
    public Retained {
      occurredAt = Map.copyOf(occurredAt);
    }
  }

  /**
   * Decides the plan.
   *
   * @param retained the outbox's row count, its oldest {@code occurred_at}, and the {@code
   *     occurred_at} of those of the tails' event ids it still holds
   * @param allRetained the operator asked to republish every retained row although the topic holds
   *     nothing to start from
   */
  public static ReplayPlan decide(
      String outbox,
      String topic,
      List<PartitionTail> tails,
      Retained retained,
      Duration overlap,
      boolean allRetained) {
    if (tails.isEmpty()) {
      if (retained.rows() == 0 || allRetained) {
        return new ReplayPlan(
            outbox,
            topic,
            tails,
            Optional.of(retained.oldest().orElse(Instant.EPOCH)),
            Optional.empty());
      }
      return refuse(
          outbox,
          topic,
          tails,
          "topic '%s' holds no event, so nothing tells which of the %d rows retained in %s (oldest"
              + " from %s) reached Kafka, nor whether rows purged before them did. If the topic was"
              + " never written to (or was deleted), run again with --all-retained to republish"
              + " every retained row.",
          topic,
          retained.rows(),
          outbox,
          retained.oldest().map(Instant::toString).orElse("-"));
    }
    List<String> missing = new ArrayList<>();
    Instant earliest = null;
    for (PartitionTail tail : tails) {
      Instant stamped = tail.eventId().map(retained.occurredAt()::get).orElse(null);
      if (stamped == null) {
        missing.add(tail.toString());
      } else if (earliest == null || stamped.isBefore(earliest)) {
        earliest = stamped;
      }
    }
    if (!missing.isEmpty()) {
      return refuse(
          outbox,
          topic,
          tails,
          "the retained window of %s does not reach back to the last event in Kafka of %s: %s %s"
              + " not in %s, which retains %d row(s)%s. The events committed after %s and before the"
              + " oldest retained row are missing from the outbox and cannot be republished from it;"
              + " nothing was published and the slot was not changed. Keep rows longer"
              + " (writer.outbox.retention=keep and keep-days, consumer.outbox.keep-days) so that a later recovery"
              + " can; these events have to be re-emitted from their jobs.",
          outbox,
          missing.size() == 1 ? "partition" : "partitions",
          String.join("; ", missing),
          missing.size() == 1 ? "is" : "are",
          outbox,
          retained.rows(),
          retained.oldest().map(oldest -> ", the oldest from " + oldest).orElse(""),
          missing.size() == 1 ? "that event" : "those events");
    }
    return new ReplayPlan(
        outbox, topic, tails, Optional.of(earliest.minus(overlap)), Optional.empty());
  }

  private static ReplayPlan refuse(
      String outbox, String topic, List<PartitionTail> tails, String format, Object... args) {
    return new ReplayPlan(
        outbox,
        topic,
        tails,
        Optional.empty(),
        Optional.of("Recovery refused for " + outbox + ": " + String.format(format, args)));
  }
}
