package io.herald.relay.offsets;

/** The offsets topic could not be read or written at start-up. */
public final class OffsetStoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  OffsetStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
