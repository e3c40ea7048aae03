package io.herald.relay.debezium;

import io.debezium.bean.StandardBeanNames;
import io.debezium.bean.spi.BeanRegistry;
import io.debezium.config.CommonConnectorConfig;
import io.debezium.config.Configuration;
import io.debezium.connector.base.QueueProviderService;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresConnectorTask;
import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.debezium.connector.postgresql.PostgresPartition;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.DataChangeEvent;
import io.debezium.pipeline.ErrorHandler;
import io.debezium.service.spi.ServiceProvider;
import io.debezium.service.spi.ServiceRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's PostgreSQL task, with a poll that hands over events as soon as the streaming thread
 * queues them.
 *
 * <p><b>Works around</b> (Debezium 3.6.1): {@code ChangeEventQueue.poll} returns only a full {@code
 * max.batch.size} batch or, after {@code poll.interval.ms}, what has gathered by then; and it spins
 * through the last millisecond of every interval. Under light load every event so waits up to one
 * interval in the queue, and an idle relay burns about a millisecond of CPU per interval. This task
 * puts an {@link EventHandoff} under the queue (through Debezium's {@code QueueProviderService})
 * and polls it itself while less than a full batch is queued: it blocks until the first event
 * arrives, or for one poll interval (at least {@link #MIN_IDLE_WAIT}) when none does, and returns
 * what is queued (after {@code relay.sink.linger}, when set: see {@link
 * EventHandoff#awaitAndDrain}). With a full batch or more queued (a backlog, or a streaming thread
 * blocked on a full queue) it leaves the poll to Debezium, whose poll also wakes a blocked
 * streaming thread. A failure of the streaming thread is raised by Debezium's poll, as before.
 *
 * <p>It also takes two per-event costs out of Debezium's streaming metrics ({@link
 * StreamingMetricsTrim}).
 *
 * <p><b>Confirming without a read-back.</b> After every offset flush, Debezium's next poll reads
 * the offsets topic back to its end ({@code PostgresConnectorTask.performCommit}: a request to
 * Kafka and a wait for the offset store's reader, 1 to 11 ms on the engine's thread, four times a
 * second at the relay's flush interval, with no timeout while Kafka is down) before it confirms the
 * stored position to the slot. This task confirms the position the engine's flush has just stored
 * ({@link FlushedOffset}) and reads back only when that is not known (before the first flush on the
 * engine's thread, after a flush on another). The slot still never confirms a position that is not
 * stored, the invariant {@code SlotGuard} checks at every start. Each confirmation is reported to
 * the engine's {@link TaskHooks}, saying whether it read back.
 *
 * <p>Debezium's byte-size bound on the queue ({@code max.queue.size.in.bytes}) is accounted inside
 * its own poll, so the relay refuses it with the patches on; {@code max.queue.size} bounds the
 * queue.
 *
 * <p><b>Would let it go</b>: a Debezium whose queue poll returns as soon as an event is queued (a
 * signal, not a timed wait for a full batch) and does not spin, and one that confirms what its
 * engine stored without reading it back (see {@link FlushedOffset}); then this task is only {@link
 * StreamingMetricsTrim}'s hook. With {@code relay.engine.debezium-patches=false} the engine runs
 * Debezium's own task.
 */
public class HeraldPostgresConnectorTask extends PostgresConnectorTask {

  private static final Logger log = LoggerFactory.getLogger(HeraldPostgresConnectorTask.class);

  /**
   * Shortest wait of an idle poll. Events wake the poll at once, so the wait only sets how often an
   * idle engine comes round to commit offsets and check for a stop, and each round costs CPU
   * (measured in docs/benchmarks-history.md, "Relay: draining a backlog"): a round every 10 ms
   * would show in an idle relay's cost. At 100 ms the last batch's offsets are committed at most a
   * tenth of a second late.
   */
  static final Duration MIN_IDLE_WAIT = Duration.ofMillis(100);

  /**
   * The connector property that carries {@code relay.sink.linger} in milliseconds ({@link
   * DebeziumPatches#handoffLinger}); absent, events are handed over as they come.
   */
  static final String LINGER_PROPERTY = "herald.handoff.linger.ms";

  private volatile Handoff handoff;

  private final FlushedOffset flushed = new FlushedOffset();

  /**
   * How the connector reads a stored offset, as Debezium's read-back does; set by {@link #start}.
   */
  private volatile PostgresOffsetContext.Loader offsetLoader;

  /** Where confirmations are reported; set by {@link #start}. */
  private volatile SlotConfirmations confirmations = SlotConfirmations.NONE;

  /** Keeps a stop's confirmation from running beside a poll's, as Debezium's own lock does. */
  private final ReentrantLock confirmLock = new ReentrantLock();

  private record Handoff(
      EventHandoff<DataChangeEvent> events, int maxBatchSize, Duration idleWait) {}

  @Override
  protected void registerServiceProviders(ServiceRegistry serviceRegistry) {
    super.registerServiceProviders(serviceRegistry);
    // Replaces Debezium's provider of the same service: the registry keeps one per service class.
    serviceRegistry.registerServiceProvider(
        new ServiceProvider<QueueProviderService>() {
          @Override
          public Class<QueueProviderService> getServiceClass() {
            return QueueProviderService.class;
          }

          @Override
          public QueueProviderService createService(
              Configuration configuration, ServiceRegistry registry) {
            CommonConnectorConfig config =
                registry
                    .tryGetService(BeanRegistry.class)
                    .lookupByName(StandardBeanNames.CONNECTOR_CONFIG, CommonConnectorConfig.class);
            EventHandoff<DataChangeEvent> events =
                new EventHandoff<>(
                    config.getMaxQueueSize(),
                    Duration.ofMillis(configuration.getLong(LINGER_PROPERTY, 0L)));
            Duration idleWait =
                config.getPollInterval().compareTo(MIN_IDLE_WAIT) > 0
                    ? config.getPollInterval()
                    : MIN_IDLE_WAIT;
            handoff = new Handoff(events, config.getMaxBatchSize(), idleWait);
            return new QueueProviderService(events);
          }
        });
  }

  @Override
  public ChangeEventSourceCoordinator<PostgresPartition, PostgresOffsetContext> start(
      Configuration config) {
    ChangeEventSourceCoordinator<PostgresPartition, PostgresOffsetContext> coordinator =
        super.start(config);
    StreamingMetricsTrim.apply(coordinator);
    confirmations = TaskHooks.lookup(config.getString(TaskHooks.PROPERTY)).confirmations();
    offsetLoader = new PostgresOffsetContext.Loader(new PostgresConnectorConfig(config));
    return coordinator;
  }

  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata)
      throws InterruptedException {
    super.commitRecord(record, metadata);
    flushed.marked(record);
  }

  @Override
  public void commit() throws InterruptedException {
    flushed.flushed();
    super.commit();
  }

  /**
   * Confirms the position the last flush stored, as Debezium's own would after reading it back (the
   * offset goes through the same loader, so the slot sees the same LSN).
   */
  @Override
  public void performCommit() {
    Optional<FlushedOffset.Position> stored = flushed.stored();
    PostgresOffsetContext.Loader loader = offsetLoader;
    if (stored.isEmpty() || loader == null) {
      super.performCommit();
      confirmations.confirmed(true);
      return;
    }
    if (!confirmLock.tryLock()) {
      log.debug("A confirmation is already under way (a poll's and the stop's); this one is left");
      return;
    }
    try {
      // Null once the task has stopped, which Debezium's own confirmation checks too.
      ChangeEventSourceCoordinator<PostgresPartition, PostgresOffsetContext> running = coordinator;
      if (running != null) {
        running.commitOffset(
            stored.get().partition(), loader.load(stored.get().offset()).getOffset());
        confirmations.confirmed(false);
      }
    } finally {
      confirmLock.unlock();
    }
  }

  /** What the task knows of its engine's last stored flush, for tests of the wiring. */
  FlushedOffset flushedOffset() {
    return flushed;
  }

  @Override
  public List<SourceRecord> doPoll() throws InterruptedException {
    Handoff current = handoff;
    if (current == null || current.events().size() >= current.maxBatchSize() || producerFailed()) {
      return super.doPoll();
    }
    List<DataChangeEvent> events =
        current.events().awaitAndDrain(current.maxBatchSize(), current.idleWait());
    if (events.isEmpty()) {
      // Debezium's poll throws the streaming thread's failure, wrapped as its error handler chose.
      return producerFailed() ? super.doPoll() : List.of();
    }
    List<SourceRecord> records = new ArrayList<>(events.size());
    for (DataChangeEvent event : events) {
      records.add(event.getRecord());
    }
    return records;
  }

  private boolean producerFailed() {
    return getErrorHandler().map(ErrorHandler::getProducerThrowable).isPresent();
  }
}
