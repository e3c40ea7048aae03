package io.herald.relay.offsets;

import io.herald.relay.slot.Lsn;
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

  /** The furthest position this offset refers to. */
  public Optional<Lsn> furthest() {
    return java.util.stream.Stream.of(lsn, lsnCommit, lsnProc)
        .flatMap(Optional::stream)
        .max(Lsn::compareTo);
  }
}
