package io.herald.writer.status;

import io.herald.runtime.inbox.Decoded;
import io.herald.runtime.inbox.InboxHandler;
import io.herald.runtime.inbox.InboxLoop;
import io.herald.runtime.inbox.InboxSettings;
import io.herald.writer.metrics.StatusMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status view's handler on the shared {@link InboxLoop}: one member of the {@code
 * writer.status.group-id} group. Each poll's valid events are applied in one transaction ({@link
 * StatusStore}) before the offsets are committed. Invalid records, and events the database refuses,
 * are logged with their position, counted and skipped, so they never block a partition.
 *
 * <p>Never fatal to the writer: the loop reaches Kafka in the background, and {@link #health()}
 * reports a lagging view. Lifecycle: {@link #start()} once, {@link #close()} any number of times.
 */
final class StatusListener
    implements InboxHandler<StatusEvent, StatusStore.Outcome>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StatusListener.class);

  private final StatusDecoder decoder;
  private final StatusStore store;
  private final StatusMetrics metrics;
  private final InboxLoop<StatusEvent, StatusStore.Outcome> loop;

  StatusListener(
      InboxSettings settings,
      StatusDecoder decoder,
      StatusStore store,
      StatusMetrics metrics,
      MeterRegistry registry) {
    this.decoder = decoder;
    this.store = store;
    this.metrics = metrics;
    this.loop = new InboxLoop<>(settings, this, registry);
  }

  void start() {
    loop.start();
  }

  /** The loop's health signal: degraded while the view lags. */
  InboxLoop.Health health() {
    return loop.health();
  }

  @Override
  public Decoded<StatusEvent> decode(ConsumerRecord<byte[], byte[]> record) {
    return decoder.decode(record);
  }

  @Override
  public List<StatusStore.Outcome> apply(List<StatusEvent> events) throws SQLException {
    return store.apply(events);
  }

  @Override
  public Future<?> reject(Decoded.Invalid<StatusEvent> bad) {
    metrics.invalid();
    log.error(
        "Status view skipped {}-{}@{}: {} ({})",
        bad.record().topic(),
        bad.record().partition(),
        bad.record().offset(),
        bad.reason(),
        bad.detail());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void failed(Exception failure) {
    metrics.failure();
  }

  @Override
  public void applied(List<StatusEvent> events, List<StatusStore.Outcome> outcomes) {
    // Committed: counted and reported before the offsets, which may still fail (then redelivered
    // events come back as duplicates and invalid ones are skipped again).
    for (int i = 0; i < events.size(); i++) {
      StatusStore.Outcome outcome = outcomes.get(i);
      metrics.outcome(outcome);
      StatusEvent event = events.get(i);
      if (outcome == StatusStore.Outcome.UNKNOWN_JOB) {
        // Normal when several writer databases share the topic; counted, not shouted.
        log.debug(
            "Status event {} names job {} unknown here; ignored", event.messageId(), event.jobId());
      } else if (log.isDebugEnabled()) {
        log.debug(
            "Status event {} for job {} ({}): {}",
            event.messageId(),
            event.jobId(),
            event.state(),
            outcome.tag);
      }
    }
  }

  /** Stops the loop (an in-flight batch finishes or rolls back) and waits for it. */
  @Override
  public void close() {
    loop.close();
  }
}
