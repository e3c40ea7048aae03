package io.herald.relay.slot;

/**
 * Starting would risk skipping committed outbox events, so the relay refuses. The message says what
 * is wrong and how to recover.
 */
public final class SlotGapException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  SlotGapException(String message) {
    super(message);
  }
}
