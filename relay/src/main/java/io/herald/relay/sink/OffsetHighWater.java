package io.herald.relay.sink;

import io.herald.relay.offsets.EngineOffset;
import io.herald.relay.offsets.Lsn;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the offsets the sink marks from moving backwards.
 *
 * <p>When Debezium restarts its task in process (the replication connection broke), it streams
 * again from the last <em>stored</em> offset, so records the sink already marked come once more;
 * and batches the sink had in flight may be settled after the restart, marking positions ahead of
 * the re-read ones. Marking the re-read records would move the stored offset back behind a position
 * already confirmed to the slot, and the relay's slot check would then refuse the next start (slot
 * ahead of the offsets: the signature of a recreated slot). Every record at or before the highest
 * position marked so far has been acknowledged by Kafka, so a re-read record before it is published
 * again (a duplicate) but not marked.
 *
 * <p>Positions compare as the slot sees them: {@link EngineOffset#confirmedPosition()}. Used from
 * the engine's thread only.
 */
final class OffsetHighWater {

  private static final Logger log = LoggerFactory.getLogger(OffsetHighWater.class);

  private long highest = EngineOffset.NO_POSITION;
  private boolean skipping;

  /** Whether {@code record} may be marked: its position is not behind the highest marked one. */
  boolean admits(SourceRecord record) {
    long position = EngineOffset.confirmedPosition(record.sourceOffset());
    if (position == EngineOffset.NO_POSITION) {
      return true;
    }
    if (highest != EngineOffset.NO_POSITION && Long.compareUnsigned(position, highest) < 0) {
      if (!skipping) {
        skipping = true;
        log.info(
            "Records from {} on are behind the position already marked ({}): re-read after the"
                + " engine restarted its task; published again, not marked",
            new Lsn(position),
            new Lsn(highest));
      }
      return false;
    }
    skipping = false;
    highest = position;
    return true;
  }
}
