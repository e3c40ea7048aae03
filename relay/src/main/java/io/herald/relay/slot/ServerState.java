package io.herald.relay.slot;

import io.herald.relay.offsets.Lsn;

/**
 * The PostgreSQL server the relay is connected to.
 *
 * @param systemIdentifier {@code pg_control_system().system_identifier}: the same on a cluster and
 *     its physical standbys, different on any other cluster (a restored copy set up with initdb, a
 *     logical replica)
 * @param database {@code current_database()}
 * @param currentWal {@code pg_current_wal_lsn()} at the time of the check
 */
public record ServerState(String systemIdentifier, String database, Lsn currentWal) {}
