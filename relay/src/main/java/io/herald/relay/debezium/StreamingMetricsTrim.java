package io.herald.relay.debezium;

import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.meters.StreamingMeter;
import io.debezium.pipeline.metrics.DefaultStreamingChangeEventSourceMetrics;
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
 * Takes two per-event costs out of Debezium's streaming metrics (its JMX MBeans; the relay exports
 * its own meters).
 *
 * <p><b>Works around</b> (Debezium 3.6.1):
 *
 * <ul>
 *   <li><b>LastEvent</b>: Debezium renders a summary of every streamed event for that attribute,
 *       and its renderer builds a new Jackson {@code ObjectMapper} for each event
 *       (debezium/dbz#2492): the largest share of the bytes the relay allocates in a drain and a
 *       large share of the streaming thread's CPU (docs/benchmarks-history.md, "Relay: draining a
 *       backlog"). The event meter gets a metadata provider that renders only the event's position,
 *       {@code lsn: N} ({@link PlainSummary}): rendering the key and a position map as well still
 *       showed in the profile.
 *   <li><b>MilliSecondsBehindSource</b>: for every event Debezium allocates a lag measurement and
 *       hands it through a bounded queue to a thread of its own, which feeds statistics the relay
 *       turns off ({@code statistics.metrics.enabled=false}); that thread costs CPU per event
 *       besides the hand-off on the streaming thread, and a full queue logs a warning per event.
 *       The streaming meter gets a metadata provider without event timestamps ({@link
 *       NoEventTimestamp}), so no measurement is made; that attribute then reads -1. The relay's
 *       own {@code herald_relay_last_event_age_seconds} is unaffected.
 * </ul>
 *
 * <p>Debezium offers no setting for either and builds the metrics inside the task's {@code start},
 * so {@link #apply} swaps the providers by reflection on fields of this Debezium version. If an
 * upgrade moves them it logs a warning and leaves Debezium's behaviour (and {@code
 * StreamingMetricsTrimTest} fails, so the build says so first).
 *
 * <p><b>Would let it go</b>: a Debezium release with the dbz#2492 fix (after 3.6) for LastEvent,
 * and a setting that turns the per-event lag measurement off (none in 3.6.1) for the other; with
 * {@code relay.engine.debezium-patches=false} the metrics are Debezium's own.
 */
final class StreamingMetricsTrim {

  private static final Logger log = LoggerFactory.getLogger(StreamingMetricsTrim.class);

  private StreamingMetricsTrim() {}

  /**
   * Trims the streaming metrics of {@code coordinator}.
   *
   * @return whether both were trimmed
   */
  static boolean apply(ChangeEventSourceCoordinator<?, ?> coordinator) {
    Object metrics;
    try {
      metrics = field(ChangeEventSourceCoordinator.class, "streamingMetrics").get(coordinator);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Cannot reach Debezium's streaming metrics; they keep their per-event cost", e);
      return false;
    }
    boolean summary = false;
    boolean lag = false;
    try {
      if (metrics instanceof PipelineMetrics<?>) {
        summary =
            trimSummary(
                (CommonEventMeter) field(PipelineMetrics.class, "commonEventMeter").get(metrics));
      }
      if (!summary) {
        log.warn("Debezium's LastEvent metric keeps its own (slower) rendering");
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Debezium's LastEvent metric keeps its own (slower) rendering", e);
    }
    try {
      if (metrics instanceof DefaultStreamingChangeEventSourceMetrics<?>) {
        lag =
            trimLag(
                (StreamingMeter)
                    field(DefaultStreamingChangeEventSourceMetrics.class, "streamingMeter")
                        .get(metrics));
      }
      if (!lag) {
        log.warn("Debezium keeps measuring MilliSecondsBehindSource for every event");
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Debezium keeps measuring MilliSecondsBehindSource for every event", e);
    }
    return summary && lag;
  }

  /** Gives one event meter the plain LastEvent rendering. */
  static boolean trimSummary(CommonEventMeter meter) throws ReflectiveOperationException {
    Field provider = field(CommonEventMeter.class, "metadataProvider");
    Object current = provider.get(meter);
    if (!(current instanceof PlainSummary)) {
      provider.set(meter, new PlainSummary((EventMetadataProvider) current));
    }
    return true;
  }

  /** Stops one streaming meter from measuring each event's lag behind the source. */
  static boolean trimLag(StreamingMeter meter) throws ReflectiveOperationException {
    Field provider = field(StreamingMeter.class, "metadataProvider");
    Object current = provider.get(meter);
    if (!(current instanceof NoEventTimestamp)) {
      provider.set(meter, new NoEventTimestamp((EventMetadataProvider) current));
    }
    return true;
  }

  private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
    Field field = owner.getDeclaredField(name);
    field.setAccessible(true);
    return field;
  }

  /** Delegates everything to Debezium's provider. */
  private abstract static class Delegating implements EventMetadataProvider {
    final EventMetadataProvider delegate;

    Delegating(EventMetadataProvider delegate) {
      this.delegate = delegate;
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

    @Override
    public String toSummaryString(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return delegate.toSummaryString(source, offset, key, value);
    }
  }

  /** Renders LastEvent as the event's position only. */
  static final class PlainSummary extends Delegating {
    PlainSummary(EventMetadataProvider delegate) {
      super(delegate);
    }

    @Override
    public String toSummaryString(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      Object lsn = lsnOf(value);
      return lsn == null ? "" : "lsn: " + lsn;
    }

    /** The {@code source.lsn} of a change event's value, or null. */
    private static Object lsnOf(Struct value) {
      if (value == null) {
        return null;
      }
      org.apache.kafka.connect.data.Field sourceField = value.schema().field("source");
      if (sourceField == null || !(value.get(sourceField) instanceof Struct sourceBlock)) {
        return null;
      }
      org.apache.kafka.connect.data.Field lsnField = sourceBlock.schema().field("lsn");
      return lsnField == null ? null : sourceBlock.get(lsnField);
    }
  }

  /** Answers no event timestamp, so the streaming meter makes no lag measurement. */
  static final class NoEventTimestamp extends Delegating {
    NoEventTimestamp(EventMetadataProvider delegate) {
      super(delegate);
    }

    @Override
    public Instant getEventTimestamp(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return null;
    }
  }
}
