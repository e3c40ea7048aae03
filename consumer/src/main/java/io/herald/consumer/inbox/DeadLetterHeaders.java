package io.herald.consumer.inbox;

/**
 * The headers a dead letter carries besides the original record's own (contract: docs/design.md,
 * "Dead letters"). Values are plain UTF-8 strings. Public for {@code herald dlq}, which reads them
 * back and replays the record.
 */
public final class DeadLetterHeaders {

  /** Why the record was set aside ({@code invalid_json}, {@code rejected_by_database}, ...). */
  public static final String REASON = "herald.dlq.reason";

  /** What exactly was wrong, for a person; empty when there is nothing to add. */
  public static final String DETAIL = "herald.dlq.detail";

  /** The topic the record was read from. */
  public static final String ORIGINAL_TOPIC = "herald.dlq.original.topic";

  /** Its partition there. */
  public static final String ORIGINAL_PARTITION = "herald.dlq.original.partition";

  /** Its offset there. */
  public static final String ORIGINAL_OFFSET = "herald.dlq.original.offset";

  /** When the consumer set it aside (ISO-8601 instant). */
  public static final String FAILED_AT = "herald.dlq.failed.at";

  /**
   * On a record {@code herald dlq replay} put back on its topic: the dead letter it came from,
   * {@code <dlq topic>-<partition>@<offset>}. A replayed record that fails again keeps it, so its
   * new dead letter says which earlier one it repeats.
   */
  public static final String REPLAY_OF = "herald.dlq.replay.of";

  /** The prefix every header above shares; a replay drops the previous failure's headers. */
  public static final String PREFIX = "herald.dlq.";

  private DeadLetterHeaders() {}
}
