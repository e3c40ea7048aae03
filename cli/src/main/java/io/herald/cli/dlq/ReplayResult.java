package io.herald.cli.dlq;

import java.util.Objects;

/**
 * What {@code herald dlq replay} did with one dead letter; {@code --json} prints a list of them.
 * Immutable.
 *
 * @param outcome {@code replayed} (produced now), {@code already_replayed} (an earlier replay is
 *     recorded: nothing produced) or {@code skipped} (the dead letter cannot pass intake whatever
 *     is fixed: it has no event id, or does not say where it came from)
 * @param replayedAt when it was replayed (now, or by the earlier replay); null when skipped
 * @param replayedTo {@code <topic>-<partition>@<offset>} of the record produced; null when skipped
 * @param note why it was skipped; null otherwise
 */
public record ReplayResult(
    String outcome,
    String dlqTopic,
    int dlqPartition,
    long dlqOffset,
    String id,
    String reason,
    String replayedAt,
    String replayedTo,
    String note) {

  public static final String REPLAYED = "replayed";
  public static final String ALREADY_REPLAYED = "already_replayed";
  public static final String SKIPPED = "skipped";

  public ReplayResult {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(dlqTopic, "dlqTopic");
  }

  static ReplayResult of(String outcome, DeadLetter letter, String at, String to, String note) {
    return new ReplayResult(
        outcome,
        letter.dlqTopic(),
        letter.dlqPartition(),
        letter.dlqOffset(),
        letter.id(),
        letter.reason(),
        at,
        to,
        note);
  }

  /** {@code <partition>@<offset>} in the DLQ. */
  public String position() {
    return dlqPartition + "@" + dlqOffset;
  }
}
