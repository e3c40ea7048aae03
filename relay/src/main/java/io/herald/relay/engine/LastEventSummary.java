package io.herald.relay.engine;

import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.metrics.PipelineMetrics;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.pipeline.txmetadata.TransactionInfo;
import io.debezium.spi.schema.DataCollectionId;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders Debezium's {@code LastEvent} streaming metric without building a Jackson {@code
 * ObjectMapper} per event.
 *
 * <p>Debezium 3.6.1 renders a summary of every streamed event for that JMX attribute, and its
 * renderer creates a new {@code ObjectMapper} for each event (debezium/dbz#2492, fixed upstream
 * after 3.6). In the relay's drain profile this was 39 % of all allocated bytes and about a fifth
 * of the streaming thread's CPU. Debezium offers no setting to turn it off and builds the metrics
 * inside the task's {@code start}, so {@link #install} swaps the metadata provider of the streaming
 * metrics' event meter, by reflection, for one that renders the same position and key with plain
 * string concatenation. Everything else the provider answers is delegated.
 *
 * <p>If a Debezium upgrade moves these fields, {@link #install} logs a warning and changes nothing:
 * the relay keeps working at Debezium's own cost (and {@code LastEventSummaryTest} fails, so the
 * build says so first).
 */
final class LastEventSummary implements EventMetadataProvider {

  private static final Logger log = LoggerFactory.getLogger(LastEventSummary.class);

  private final EventMetadataProvider delegate;

  LastEventSummary(EventMetadataProvider delegate) {
    this.delegate = delegate;
  }

  /**
   * Replaces the summary renderer of {@code coordinator}'s streaming metrics.
   *
   * @return whether it was replaced
   */
  static boolean install(ChangeEventSourceCoordinator<?, ?> coordinator) {
    try {
      Object metrics =
          field(ChangeEventSourceCoordinator.class, "streamingMetrics").get(coordinator);
      if (!(metrics instanceof PipelineMetrics)) {
        log.warn(
            "Debezium's streaming metrics are a {}, not PipelineMetrics: LastEvent keeps Debezium's"
                + " own (slower) rendering",
            metrics == null ? "null" : metrics.getClass().getName());
        return false;
      }
      CommonEventMeter meter =
          (CommonEventMeter) field(PipelineMetrics.class, "commonEventMeter").get(metrics);
      return installIn(meter);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn(
          "Could not replace the renderer of Debezium's LastEvent metric; it keeps Debezium's own"
              + " (slower) rendering",
          e);
      return false;
    }
  }

  /** Replaces the summary renderer of one event meter. */
  static boolean installIn(CommonEventMeter meter) throws ReflectiveOperationException {
    Field provider = field(CommonEventMeter.class, "metadataProvider");
    Object current = provider.get(meter);
    if (current instanceof LastEventSummary) {
      return true;
    }
    provider.set(meter, new LastEventSummary((EventMetadataProvider) current));
    return true;
  }

  private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
    Field field = owner.getDeclaredField(name);
    field.setAccessible(true);
    return field;
  }

  @Override
  public String toSummaryString(
      DataCollectionId source, OffsetContext offset, Object key, Struct value) {
    return "position: "
        + delegate.getEventSourcePosition(source, offset, key, value)
        + ", key: "
        + key;
  }

  @Override
  public Instant getEventTimestamp(
      DataCollectionId source, OffsetContext offset, Object key, Struct value) {
    return delegate.getEventTimestamp(source, offset, key, value);
  }

  @Override
  public Map<String, String> getEventSourcePosition(
      DataCollectionId source, OffsetContext offset, Object key, Struct value) {
    return delegate.getEventSourcePosition(source, offset, key, value);
  }

  @Override
  public String getTransactionId(
      DataCollectionId source, OffsetContext offset, Object key, Struct value) {
    return delegate.getTransactionId(source, offset, key, value);
  }

  @Override
  public TransactionInfo getTransactionInfo(
      DataCollectionId source, OffsetContext offset, Object key, Struct value) {
    return delegate.getTransactionInfo(source, offset, key, value);
  }
}
