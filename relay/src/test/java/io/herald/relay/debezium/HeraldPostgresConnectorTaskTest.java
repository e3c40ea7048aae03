package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class HeraldPostgresConnectorTaskTest {

  @Test
  void shouldLearnTheStoredPositionFromTheEnginesMarksAndFlushes() throws Exception {
    HeraldPostgresConnectorTask task = new HeraldPostgresConnectorTask();
    Map<String, String> server = Map.of("server", "herald");

    // What the embedded engine calls: commitRecord per marked record, commit after a stored flush.
    task.commitRecord(new SourceRecord(server, Map.of("lsn_proc", 100L), "t", null, null), null);
    assertThat(task.flushedOffset().stored()).isEmpty();
    task.commit();

    assertThat(task.flushedOffset().stored())
        .contains(new FlushedOffset.Position(server, Map.of("lsn_proc", 100L)));
  }
}
