package io.herald.writer.job;

/**
 * What reserving one {@link PublicationIntent} did. Every variant carries the job that now stands
 * for the business key: the new one, or the one that was already there.
 */
public sealed interface Reservation {

  PublicationJob job();

  /** A new job and its {@code PublicationRequested} outbox event were committed together. */
  record Created(PublicationJob job) implements Reservation {}

  /** The key existed with the same payload hash: nothing was written. */
  record Replayed(PublicationJob job) implements Reservation {}

  /**
   * The key existed with another payload hash: nothing was written; {@code job} is the stored one.
   */
  record Conflict(PublicationJob job) implements Reservation {}
}
