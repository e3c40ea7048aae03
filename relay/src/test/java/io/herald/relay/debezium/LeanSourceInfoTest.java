package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.relational.TableId;
import java.lang.reflect.Constructor;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class LeanSourceInfoTest {

  private static final long COMMIT_MICROS = 1_764_500_000_123_456L;

  private static PostgresConnectorConfig config(String structMaker) {
    return new PostgresConnectorConfig(
        Configuration.create()
            .with("topic.prefix", "herald")
            .with("database.hostname", "localhost")
            .with("database.dbname", "herald")
            .with("database.user", "relay")
            .with("sourceinfo.struct.maker", structMaker)
            .build());
  }

  /** The source block Debezium builds for a position it resumes from (its offset). */
  private static Struct sourceBlock(PostgresConnectorConfig config) {
    PostgresOffsetContext offset =
        new PostgresOffsetContext.Loader(config)
            .load(Map.of("lsn", 40_000L, "txId", 771L, "ts_usec", COMMIT_MICROS));
    return offset.getSourceInfo();
  }

  @Test
  void shouldReachTheTransactionIdAndCommitTimeInThisDebeziumVersion() {
    assertThat(LeanSourceInfo.complete()).isTrue();
  }

  @Test
  void shouldCarryThePositionTransactionCommitTimeAndConnector() {
    PostgresConnectorConfig config = config(LeanSourceInfo.class.getName());

    Struct source = sourceBlock(config);

    assertThat(config.getSourceInfoStructMaker()).isInstanceOf(LeanSourceInfo.class);
    assertThat(source.schema().name()).isEqualTo(LeanSourceInfo.SCHEMA_NAME);
    assertThat(source.getInt64("lsn")).isEqualTo(40_000L);
    assertThat(source.getInt64("txId")).isEqualTo(771L);
    assertThat(source.getInt64("ts_ms")).isEqualTo(COMMIT_MICROS / 1000);
    assertThat(source.getString("connector")).isEqualTo("postgresql");
    assertThat(source.get("xmin")).isNull();
    source.validate();
  }

  @Test
  void shouldLeaveOutWhatNothingInTheRelayReads() {
    Struct lean = sourceBlock(config(LeanSourceInfo.class.getName()));
    Struct debezium =
        sourceBlock(config("io.debezium.connector.postgresql.PostgresSourceInfoStructMaker"));

    assertThat(lean.schema().fields()).hasSize(5);
    assertThat(debezium.schema().fields().size()).isGreaterThan(10);
    assertThat(debezium.schema().field("sequence")).isNotNull();
    assertThat(lean.schema().field("sequence")).isNull();
  }

  /** Debezium's streaming metrics read the block through the connector's metadata provider. */
  @Test
  void shouldGiveDebeziumsMetricsTheTransactionPositionAndTimestamp() throws Exception {
    Struct source = sourceBlock(config(LeanSourceInfo.class.getName()));
    Schema envelope = SchemaBuilder.struct().field("source", source.schema()).build();
    Struct value = new Struct(envelope).put("source", source);
    TableId outbox = new TableId(null, "writer", "outbox");
    Constructor<?> constructor =
        Class.forName("io.debezium.connector.postgresql.PostgresEventMetadataProvider")
            .getDeclaredConstructor();
    constructor.setAccessible(true);
    EventMetadataProvider provider = (EventMetadataProvider) constructor.newInstance();

    assertThat(provider.getTransactionId(outbox, null, null, value)).isEqualTo("771");
    assertThat(provider.getEventSourcePosition(outbox, null, null, value))
        .isEqualTo(Map.of("lsn", "40000"));
    assertThat(provider.getEventTimestamp(outbox, null, null, value))
        .isEqualTo(Instant.ofEpochMilli(COMMIT_MICROS / 1000));
  }
}
