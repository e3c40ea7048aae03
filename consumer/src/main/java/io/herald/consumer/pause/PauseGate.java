package io.herald.consumer.pause;

/**
 * Whether an operator paused a destination, as the dispatcher asks before each claim. {@link
 * Pauses} is the durable one; {@link #NONE} pauses nothing. Implementations are thread-safe.
 */
public interface PauseGate {

  /** Pauses nothing (a dispatcher without operator pauses, tests). */
  PauseGate NONE =
      new PauseGate() {
        @Override
        public boolean paused(String destination) {
          return false;
        }

        @Override
        public void refresh() {}
      };

  /** Whether {@code destination}'s deliveries must not be claimed now. */
  boolean paused(String destination);

  /**
   * Brings the answers up to date if they are due for it; cheap to call on every poll (the
   * dispatcher's loop owns the refresh). Never throws: a failed read keeps the last known state.
   */
  void refresh();
}
