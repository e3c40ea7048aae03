package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.meters.StreamingMeter;
import io.debezium.pipeline.metrics.DefaultStreamingChangeEventSourceMetrics;
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

class StreamingMetricsTrimTest {

  private static final Schema KEY =
      SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();
  private static final TableId OUTBOX = new TableId(null, "writer", "outbox");

  /** Counts what Debezium's own provider is asked. */
  private static final class CountingProvider implements EventMetadataProvider {
    final AtomicInteger summaries = new AtomicInteger();
    final AtomicInteger timestamps = new AtomicInteger();

    @Override
    public Instant getEventTimestamp(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      timestamps.incrementAndGet();
      return Instant.now().minusMillis(5);
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

  private static final Schema SOURCE =
      SchemaBuilder.struct().field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final Schema ENVELOPE =
      SchemaBuilder.struct().field("source", SOURCE).field("op", Schema.STRING_SCHEMA).build();

  private static Struct valueAt(long lsn) {
    return new Struct(ENVELOPE).put("source", new Struct(SOURCE).put("lsn", lsn)).put("op", "c");
  }

  @Test
  void shouldRenderTheLastEventAsItsPositionWithoutDebeziumsRenderer() throws Exception {
    CountingProvider debezium = new CountingProvider();
    CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, debezium);

    assertThat(StreamingMetricsTrim.trimSummary(meter)).isTrue();
    meter.onEvent(OUTBOX, null, new Struct(KEY).put("id", "0193"), valueAt(4242), null);

    assertThat(debezium.summaries).hasValue(0);
    assertThat(meter.getLastEvent()).isEqualTo("lsn: 4242");
  }

  @Test
  void shouldRenderAnEventWithoutAPositionAsEmpty() throws Exception {
    CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, new CountingProvider());
    StreamingMetricsTrim.trimSummary(meter);

    meter.onEvent(OUTBOX, null, new Struct(KEY).put("id", "x"), null, null);
    assertThat(meter.getLastEvent()).isEmpty();

    meter.onEvent(
        OUTBOX, null, new Struct(KEY).put("id", "x"), new Struct(KEY).put("id", "x"), null);
    assertThat(meter.getLastEvent()).isEmpty();
  }

  @Test
  void shouldTrimOnlyOnce() throws Exception {
    CommonEventMeter meter = new CommonEventMeter(Clock.SYSTEM, new CountingProvider());

    StreamingMetricsTrim.trimSummary(meter);
    StreamingMetricsTrim.trimSummary(meter);
    meter.onEvent(OUTBOX, null, new Struct(KEY).put("id", "x"), valueAt(7), null);

    assertThat(meter.getLastEvent()).isEqualTo("lsn: 7");
  }

  @Test
  void shouldMakeNoLagMeasurementPerEventButKeepTheRestOfTheStreamingMeter() throws Exception {
    CountingProvider debezium = new CountingProvider();
    PostgresConnectorConfig config =
        new PostgresConnectorConfig(
            Configuration.create()
                .with("topic.prefix", "herald")
                .with("database.hostname", "localhost")
                .with("database.dbname", "herald")
                .with("database.user", "relay")
                .build());
    StreamingMeter meter = new StreamingMeter(config, null, debezium);
    try {
      assertThat(StreamingMetricsTrim.trimLag(meter)).isTrue();
      meter.onEvent(OUTBOX, null, new Struct(KEY).put("id", "x"), null);

      assertThat(debezium.timestamps).hasValue(0);
      assertThat(meter.getMilliSecondsBehindSource()).isEqualTo(-1);
      assertThat(meter.getLastTransactionId()).isEqualTo("7");
      assertThat(meter.getSourceEventPosition()).containsEntry("lsn", "42");
    } finally {
      meter.stop();
    }
  }

  /**
   * The fields {@link StreamingMetricsTrim#apply} walks: a Debezium upgrade that moves one fails
   * here.
   */
  @Test
  void shouldFindTheFieldsItReplacesInThisDebeziumVersion() throws Exception {
    assertThat(ChangeEventSourceCoordinator.class.getDeclaredField("streamingMetrics").getType())
        .isAssignableFrom(DefaultStreamingChangeEventSourceMetrics.class);
    assertThat(PipelineMetrics.class)
        .isAssignableFrom(DefaultStreamingChangeEventSourceMetrics.class);
    assertThat(PipelineMetrics.class.getDeclaredField("commonEventMeter").getType())
        .isEqualTo(CommonEventMeter.class);
    assertThat(CommonEventMeter.class.getDeclaredField("metadataProvider").getType())
        .isEqualTo(EventMetadataProvider.class);
    assertThat(
            DefaultStreamingChangeEventSourceMetrics.class
                .getDeclaredField("streamingMeter")
                .getType())
        .isEqualTo(StreamingMeter.class);
    assertThat(StreamingMeter.class.getDeclaredField("metadataProvider").getType())
        .isEqualTo(EventMetadataProvider.class);
  }
}
