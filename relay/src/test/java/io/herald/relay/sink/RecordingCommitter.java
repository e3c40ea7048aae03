package io.herald.relay.sink;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/** The engine's committer as the sink's tests see it: what was marked, in order. */
public final class RecordingCommitter
    implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
  public final List<String> processed = new ArrayList<>();
  public int batchesFinished;

  /** Runs as each batch is finished, where Debezium's engine commits its offsets. */
  private final Runnable onBatchFinished;

  public RecordingCommitter() {
    this(() -> {});
  }

  public RecordingCommitter(Runnable onBatchFinished) {
    this.onBatchFinished = onBatchFinished;
  }

  @Override
  public synchronized void markProcessed(RecordChangeEvent<SourceRecord> record) {
    processed.add(String.valueOf(record.record().value()));
  }

  @Override
  public synchronized void markBatchFinished() {
    batchesFinished++;
    onBatchFinished.run();
  }

  @Override
  public void markProcessed(
      RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
    markProcessed(record);
  }

  @Override
  public DebeziumEngine.Offsets buildOffsets() {
    throw new UnsupportedOperationException();
  }
}
