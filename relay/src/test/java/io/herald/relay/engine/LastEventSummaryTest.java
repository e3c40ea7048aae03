package io.herald.relay.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.metrics.PipelineMetrics;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.relational.TableId;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class LastEventSummaryTest {

  private static final Schema KEY =
      SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();

  /** Counts Debezium's own (JSON-rendering) summaries. */
  private static final class CountingProvider implements EventMetadataProvider {
    final AtomicInteger summaries = new AtomicInteger();

    @Override
    public Instant getEventTimestamp(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return Instant.EPOCH;
    }

    @Override
    public Map<String, String> getEventSourcePosition(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return Map.of("lsn", "42");
    }

    @Override
    public String getTransactionId(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return "7";
    }

    @Override
    public String toSummaryString(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      summaries.incrementAndGet();
      return EventMetadataProvider.super.toSummaryString(source, offset, key, value);
    }
  }

  @Test
  void shouldRenderTheLastEventWithoutDebeziumsRenderer() throws Exception {
    CountingProvider debezium = new CountingProvider();
    CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, debezium);
    Struct key = new Struct(KEY).put("id", "0193");

    assertThat(LastEventSummary.installIn(meter)).isTrue();
    meter.onEvent(new TableId(null, "writer", "outbox"), null, key, null, null);

    assertThat(debezium.summaries).hasValue(0);
    assertThat(meter.getLastEvent()).contains("lsn=42").contains("0193");
  }

  @Test
  void shouldInstallOnlyOnce() throws Exception {
    CountingProvider debezium = new CountingProvider();
    CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, debezium);

    LastEventSummary.installIn(meter);
    LastEventSummary.installIn(meter);
    meter.onEvent(
        new TableId(null, "writer", "outbox"), null, new Struct(KEY).put("id", "x"), null, null);

    assertThat(meter.getLastEvent()).startsWith("position: ");
    assertThat(meter.getLastEvent()).doesNotContain("position: position");
  }

  /**
   * The fields {@link LastEventSummary#install} walks: a Debezium upgrade that moves one fails
   * here.
   */
  @Test
  void shouldFindTheFieldsItReplacesInThisDebeziumVersion() throws Exception {
    assertThat(ChangeEventSourceCoordinator.class.getDeclaredField("streamingMetrics").getType())
        .isAssignableFrom(
            io.debezium.pipeline.metrics.DefaultStreamingChangeEventSourceMetrics.class);
    assertThat(PipelineMetrics.class.getDeclaredField("commonEventMeter").getType())
        .isEqualTo(CommonEventMeter.class);
    assertThat(CommonEventMeter.class.getDeclaredField("metadataProvider").getType())
        .isEqualTo(EventMetadataProvider.class);
    assertThat(PipelineMetrics.class)
        .isAssignableFrom(
            io.debezium.pipeline.metrics.DefaultStreamingChangeEventSourceMetrics.class);
  }
}
