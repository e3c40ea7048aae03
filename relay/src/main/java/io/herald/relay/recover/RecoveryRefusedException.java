package io.herald.relay.recover;

/**
 * The recovery would leave a gap, or cannot run safely now (a relay is streaming); nothing was
 * published and the slot was not changed. The message says what is wrong and what is missing.
 */
public final class RecoveryRefusedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  RecoveryRefusedException(String message) {
    super(message);
  }
}
