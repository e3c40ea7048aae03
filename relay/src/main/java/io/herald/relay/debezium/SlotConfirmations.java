package io.herald.relay.debezium;

/**
 * Told each time the relay's connector task confirms a position to the slot, and how the task knew
 * the position: from the engine's own last flush ({@link FlushedOffset}), or by reading the offsets
 * topic back as Debezium does. In steady streaming every confirmation should come from the flush; a
 * relay whose confirmations keep reading back has lost that patch (an upgrade that no longer calls
 * the task's hooks on the engine's thread): slower, never unsafe.
 *
 * <p>Called on the engine's thread or on the thread stopping it; must not block.
 */
@FunctionalInterface
public interface SlotConfirmations {

  /** Reports nothing, for engines whose confirmations nobody counts. */
  SlotConfirmations NONE = readBack -> {};

  /**
   * @param readBack whether the position was read back from the offsets topic rather than taken
   *     from the engine's last flush
   */
  void confirmed(boolean readBack);
}
