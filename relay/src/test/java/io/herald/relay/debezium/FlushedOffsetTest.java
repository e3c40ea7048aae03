package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FlushedOffsetTest {

  private static final Map<String, String> SERVER = Map.of("server", "herald");

  private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopOtherThread() {
    otherThread.shutdownNow();
  }

  @Test
  void shouldKnowNothingBeforeTheFirstFlush() {
    FlushedOffset flushed = new FlushedOffset();
    flushed.marked(record(100));

    assertThat(flushed.stored()).isEmpty();
  }

  @Test
  void shouldHoldTheLastRecordMarkedBeforeAFlushOnTheMarkingThread() {
    FlushedOffset flushed = new FlushedOffset();
    flushed.marked(record(100));
    flushed.marked(record(200));
    flushed.flushed();

    assertThat(flushed.stored())
        .contains(new FlushedOffset.Position(SERVER, Map.of("lsn_proc", 200L)));
  }

  @Test
  void shouldKeepTheStoredPositionWhileRecordsMarkedAfterTheFlushWaitForTheNext() {
    FlushedOffset flushed = new FlushedOffset();
    flushed.marked(record(100));
    flushed.flushed();
    flushed.marked(record(300));

    assertThat(flushed.stored().orElseThrow().offset()).isEqualTo(Map.of("lsn_proc", 100L));

    flushed.flushed();

    assertThat(flushed.stored().orElseThrow().offset()).isEqualTo(Map.of("lsn_proc", 300L));
  }

  @Test
  void shouldForgetThePositionWhenAFlushEndsOnAnotherThreadThanTheMarking() throws Exception {
    FlushedOffset flushed = new FlushedOffset();
    flushed.marked(record(100));
    flushed.flushed();

    flushed.marked(record(200));
    // The engine's stop flushes on its own thread: a record marked meanwhile may not be in it.
    CompletableFuture.runAsync(flushed::flushed, otherThread).get();

    assertThat(flushed.stored()).isEmpty();

    flushed.marked(record(300));
    flushed.flushed();

    assertThat(flushed.stored().orElseThrow().offset()).isEqualTo(Map.of("lsn_proc", 300L));
  }

  private static SourceRecord record(long lsn) {
    return new SourceRecord(SERVER, Map.of("lsn_proc", lsn), "topic", null, null);
  }
}
