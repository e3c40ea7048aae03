package io.herald.relay.debezium;

import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The source position the engine last stored in the offsets topic, learned from the task's own
 * callbacks so that confirming it to the slot needs no read-back of the topic.
 *
 * <p>Debezium's embedded engine calls {@code SourceTask.commitRecord} for each record the sink
 * marks processed, just before it gives the record's offset to its offset writer, and {@code
 * SourceTask.commit} once a flush of that writer is stored. When both come on the same thread (the
 * engine's, which flushes inside the sink's {@code markBatchFinished}), the flush took exactly the
 * offsets marked before it, so the last record marked holds the stored position. A flush finished
 * on another thread (the engine's stop) may have begun before a record was marked meanwhile: the
 * position is then unknown until the next flush on the marking thread, and the task reads it back
 * as Debezium does. The PostgreSQL connector has one source partition (the server), so the last
 * record marked is the whole of what a flush stores.
 *
 * <p><b>Works around</b> Debezium 3.6.1's {@code PostgresConnectorTask.performCommit}, which reads
 * the offsets topic back to its end after every flush, on the engine's thread. <b>Would let it
 * go</b>: a Debezium whose task confirms the position its engine reports stored (the embedded
 * engine knows it when {@code commit} is called). If an upgrade stops calling {@code commitRecord}
 * or {@code commit} on the marking thread, nothing is known and the task reads back as before:
 * slower, never ahead of the topic.
 *
 * <p>Thread-safe.
 */
final class FlushedOffset {

  /** A record's source partition and offset, as the offset writer stores them. */
  record Position(Map<String, ?> partition, Map<String, ?> offset) {}

  private Thread markingThread;

  /** Kept as the record itself: marking runs per event, a flush four times a second. */
  private SourceRecord marked;

  private Position stored;

  /** The sink marked {@code record} processed: its offset goes into the next flush. */
  synchronized void marked(SourceRecord record) {
    markingThread = Thread.currentThread();
    marked = record;
  }

  /** A flush of the offset writer was stored. */
  synchronized void flushed() {
    stored =
        Thread.currentThread() == markingThread && marked != null
            ? new Position(marked.sourcePartition(), marked.sourceOffset())
            : null;
  }

  /** The position the last flush stored; empty when it is not known (read it back instead). */
  synchronized Optional<Position> stored() {
    return Optional.ofNullable(stored);
  }
}
