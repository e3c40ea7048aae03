package io.herald.common.event;

/** Values of the {@link EventHeaders#EVENT_TYPE} header. */
public final class EventTypes {

  /** A job was accepted by the writer; value is {@link PublicationRequested}. */
  public static final String PUBLICATION_REQUESTED = "PublicationRequested";

  /** The destination confirmed the article. */
  public static final String PUBLICATION_PUBLISHED = "PublicationPublished";

  /** A definite failure; another attempt is scheduled after a backoff. */
  public static final String PUBLICATION_RETRYING = "PublicationRetrying";

  /** The outcome of an attempt is unknown (timeout after sending); reconciliation follows. */
  public static final String PUBLICATION_UNCERTAIN = "PublicationUncertain";

  /** Reconciliation could not decide; an operator must. */
  public static final String PUBLICATION_NEEDS_RECONCILIATION = "PublicationNeedsReconciliation";

  /** The destination rejected the article permanently, or an operator abandoned it. */
  public static final String PUBLICATION_FAILED = "PublicationFailed";

  /**
   * The consumer has no configuration for the delivery's destination (a typo, or one not configured
   * yet): it is kept, not sent, until an operator retries it (once configured) or abandons it.
   */
  public static final String PUBLICATION_UNKNOWN_DESTINATION = "PublicationUnknownDestination";

  /** The same business key arrived with a different payload. */
  public static final String PUBLICATION_CONFLICT = "PublicationConflict";

  private EventTypes() {}
}
