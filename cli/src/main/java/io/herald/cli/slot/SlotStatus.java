package io.herald.cli.slot;

import java.util.Objects;

/**
 * What {@code herald slot status} reports about one replication slot; {@code --json} prints it as
 * is. Immutable.
 *
 * @param slot the slot's name ({@code debezium.source.slot.name})
 * @param database the database the relay captures ({@code debezium.source.database.dbname})
 * @param exists false when the database has no such slot; the other fields are then null
 * @param plugin the output plugin ({@code pgoutput})
 * @param active whether a session reads the slot
 * @param activePid the reading session's backend pid, or null
 * @param confirmedFlushLsn how far the reader has confirmed
 * @param restartLsn the oldest WAL the slot keeps
 * @param walStatus PostgreSQL's {@code wal_status} ({@code reserved}, {@code extended}, {@code
 *     unreserved}, {@code lost})
 * @param walRetainedBytes WAL the slot holds on disk: {@code pg_current_wal_lsn() - restart_lsn}
 * @param lagBytes WAL not yet confirmed: {@code pg_current_wal_lsn() - confirmed_flush_lsn}, the
 *     figure the relay's slot-lag monitor measures
 * @param lagWarnBytes {@code relay.slot.lag-warn-bytes}
 * @param lagOverWarning {@code lagBytes > lagWarnBytes}
 * @param invalidationReason why PostgreSQL invalidated the slot ({@code wal_removed}, {@code
 *     rows_removed}, ...; PostgreSQL 17 and later), or null: an invalidated slot can never stream
 *     again, and events after its last confirmed position must be recovered from the outbox
 * @param failover whether the slot is created for failover (PostgreSQL 17 and later), or null on
 *     older servers
 * @param synced whether this slot is a standby's copy synchronized from its primary (PostgreSQL 17
 *     and later), or null on older servers
 * @param synchronizedStandbySlots the server's {@code synchronized_standby_slots} (PostgreSQL 17
 *     and later; blank when unset, null on older servers): the standby slots a failover slot's
 *     changes wait for, without which a failover can leave events for commits the standby lacks
 * @param timeline the server's timeline (from the name of its current WAL file), or null when the
 *     slot is missing: one higher than the relay last streamed on means a standby was promoted
 *     since, and the relay's next term resumes from the slot (docs/design.md, "PostgreSQL
 *     failover")
 */
public record SlotStatus(
    String slot,
    String database,
    boolean exists,
    String plugin,
    Boolean active,
    Integer activePid,
    String confirmedFlushLsn,
    String restartLsn,
    String walStatus,
    Long walRetainedBytes,
    Long lagBytes,
    long lagWarnBytes,
    boolean lagOverWarning,
    String invalidationReason,
    Boolean failover,
    Boolean synced,
    String synchronizedStandbySlots,
    Long timeline) {

  public SlotStatus {
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(database, "database");
  }

  /** The slot does not exist in {@code database}. */
  static SlotStatus missing(String slot, String database, long lagWarnBytes) {
    return new SlotStatus(
        slot,
        database,
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        lagWarnBytes,
        false,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * Whether this status is a violation: the slot is missing, invalidated (its WAL is gone: {@code
   * wal_status} lost, or an invalidation reason), or lags more than the warning.
   */
  public boolean violated() {
    return !exists || invalidated() || lagOverWarning;
  }

  /** PostgreSQL has given the slot up: it can never stream again. */
  public boolean invalidated() {
    return "lost".equals(walStatus) || invalidationReason != null;
  }
}
