package io.herald.consumer.delivery;

import io.herald.common.event.EventTypes;

/**
 * The states of a delivery (DESIGN.md "Delivery states"). {@code RETRY_WAIT} becomes due again when
 * its {@code next_attempt_at} passes: the claim query takes it like a {@code PENDING} row, so the
 * {@code RETRY_WAIT -> PENDING} step costs no write.
 */
public enum DeliveryState {
  PENDING(false, EventTypes.PUBLICATION_RETRYING),
  DISPATCHING(false, null),
  RETRY_WAIT(false, EventTypes.PUBLICATION_RETRYING),
  UNCERTAIN(false, EventTypes.PUBLICATION_UNCERTAIN),
  NEEDS_RECONCILIATION(false, EventTypes.PUBLICATION_NEEDS_RECONCILIATION),
  PUBLISHED(true, EventTypes.PUBLICATION_PUBLISHED),
  FAILED(true, EventTypes.PUBLICATION_FAILED),
  ABANDONED(true, EventTypes.PUBLICATION_FAILED),
  /**
   * Received for a destination this consumer has no {@code consumer.destinations.<name>.*} for:
   * never claimed; an operator's retry (once it is configured) or abandon moves it on. Not final,
   * so it holds back later revisions of its article and destination (guarantee 5). Last: added
   * after the others, whose order the monitor and its tests show.
   */
  UNKNOWN_DESTINATION(false, EventTypes.PUBLICATION_UNKNOWN_DESTINATION);

  private final boolean isFinal;
  private final String eventType;

  DeliveryState(boolean isFinal, String eventType) {
    this.isFinal = isFinal;
    this.eventType = eventType;
  }

  /** Final states release the next revision of the same article and destination (guarantee 5). */
  public boolean isFinal() {
    return isFinal;
  }

  /**
   * The status event type written when a delivery enters this state. {@code DISPATCHING} has none:
   * a claim is a lease, not an outcome; entering {@code PENDING} again (after uncertainty or an
   * operator's retry) is announced as retrying.
   */
  public String eventType() {
    if (eventType == null) {
      throw new IllegalStateException(this + " is a lease, not an announced state");
    }
    return eventType;
  }
}
