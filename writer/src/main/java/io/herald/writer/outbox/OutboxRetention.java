package io.herald.writer.outbox;

/**
 * What happens to an outbox row once it is committed (the WAL already holds the event); {@code
 * writer.outbox.retention}.
 */
public enum OutboxRetention {
  /** Deleted in the inserting transaction: the table stays empty, the WAL carries the event. */
  DELETE_IMMEDIATELY,
  /** Kept for an audit window and purged in batches. */
  KEEP
}
