package io.herald.relay.slot;

import io.herald.relay.offsets.Lsn;
import java.util.Optional;

/**
 * A logical replication slot as {@code pg_replication_slots} shows it.
 *
 * @param invalidation why PostgreSQL invalidated the slot ({@code wal_status = 'lost'} or {@code
 *     invalidation_reason}), empty while it is usable
 */
public record SlotState(
    String name,
    String plugin,
    String slotType,
    String database,
    boolean active,
    Optional<Lsn> confirmedFlush,
    Optional<Lsn> restart,
    Optional<String> invalidation) {}
