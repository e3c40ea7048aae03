package io.herald.relay.offsets;

import java.util.Optional;

/** What the offsets topic holds for this relay: the engine's offset and the slot identity. */
public record StoredOffsets(Optional<EngineOffset> engine, Optional<SlotIdentity> identity) {

  public static final StoredOffsets NONE = new StoredOffsets(Optional.empty(), Optional.empty());
}
