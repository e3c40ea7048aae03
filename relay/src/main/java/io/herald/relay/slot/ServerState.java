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
 * @param timeline the timeline of {@code currentWal} (the first eight hex digits of its WAL file
 *     name): a promotion of a standby starts a new, higher one
 */
public record ServerState(String systemIdentifier, String database, Lsn currentWal, long timeline) {

  /** The timeline of a WAL file name such as {@code 000000020000000000000003}. */
  public static long timelineOf(String walFileName) {
    if (walFileName == null || walFileName.length() != 24) {
      throw new IllegalArgumentException("not a WAL file name: '" + walFileName + "'");
    }
    return Long.parseLong(walFileName.substring(0, 8), 16);
  }
}
