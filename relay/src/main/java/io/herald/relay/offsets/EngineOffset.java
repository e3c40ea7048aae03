package io.herald.relay.offsets;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The PostgreSQL connector's stored offset for this relay.
 *
 * @param lsn {@code lsn}: the position of the last event handed to the sink
 * @param lsnCommit {@code lsn_commit}: the commit position of the last transaction
 * @param lsnProc {@code lsn_proc}: the last position completely processed
 */
public record EngineOffset(Optional<Lsn> lsn, Optional<Lsn> lsnCommit, Optional<Lsn> lsnProc) {

  /** What {@link #confirmedPosition(Map)} answers for an offset without a position. */
  public static final long NO_POSITION = -1;

  /** The keys {@link #confirmedPosition()} tries, in order. */
  private static final List<String> CONFIRMED_ORDER = List.of("lsn_commit", "lsn_proc", "lsn");

  /**
   * The offset a change record carries ({@code SourceRecord.sourceOffset()}), numbers as stored.
   */
  public static EngineOffset of(Map<String, ?> sourceOffset) {
    return new EngineOffset(
        lsnAt(sourceOffset, "lsn"),
        lsnAt(sourceOffset, "lsn_commit"),
        lsnAt(sourceOffset, "lsn_proc"));
  }

  private static Optional<Lsn> lsnAt(Map<String, ?> offset, String key) {
    return offset != null && offset.get(key) instanceof Number number
        ? Optional.of(new Lsn(number.longValue()))
        : Optional.empty();
  }

  /**
   * The position the connector confirms to the slot for this offset: it flushes {@code lsn_commit}
   * when present, else {@code lsn_proc} (PostgresStreamingChangeEventSource#commitOffset in
   * Debezium 3.6). The slot's {@code confirmed_flush_lsn} can therefore never legitimately be ahead
   * of it.
   */
  public Optional<Lsn> confirmedPosition() {
    return lsnCommit.or(() -> lsnProc).or(() -> lsn);
  }

  /**
   * {@link #confirmedPosition()} of the offset a change record carries, read without building an
   * {@code EngineOffset}: the sink asks it of every record it marks.
   *
   * @return the position as stored, or {@link #NO_POSITION} when the offset has none
   */
  public static long confirmedPosition(Map<String, ?> sourceOffset) {
    if (sourceOffset == null) {
      return NO_POSITION;
    }
    for (String key : CONFIRMED_ORDER) {
      if (sourceOffset.get(key) instanceof Number number) {
        return number.longValue();
      }
    }
    return NO_POSITION;
  }

  /** The furthest position this offset refers to. */
  public Optional<Lsn> furthest() {
    return java.util.stream.Stream.of(lsn, lsnCommit, lsnProc)
        .flatMap(Optional::stream)
        .max(Lsn::compareTo);
  }
}
