package io.herald.writer.status;

import io.herald.writer.metrics.StatusMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll loop of the status view: one member of the {@code writer.status.group-id} group, on its
 * own thread.
 *
 * <p>Each poll (at most {@code max-poll-records} records) is decoded, its valid events applied in
 * one database transaction ({@link StatusStore}), and only then are the offsets committed: no
 * offset passes an event that is not in the database. Invalid records are logged with their
 * position, counted and skipped (their offsets are committed with the batch), so they never block a
 * partition. A failed batch (database or broker unavailable) is read again from its first offset
 * after {@code failure-backoff}; the inbox makes that harmless.
 *
 * <p>Never fatal to the writer: the Kafka client is created on the loop thread and re-created after
 * a failure, so an unresolvable or unreachable broker only makes the view lag. {@link #health()}
 * says so.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (idempotent); the state moves NEW ->
 * RUNNING -> STOPPED by compare-and-set. The Kafka consumer is used only by the loop thread, except
 * for {@link KafkaConsumer#wakeup()}, which is thread-safe.
 */
final class StatusListener implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StatusListener.class);
  private static final Duration PROBE_MAX_INTERVAL = Duration.ofSeconds(10);
  private static final Duration PROBE_MAX_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
  private static final Duration STACK_TRACE_INTERVAL = Duration.ofMinutes(1);

  enum State {
    NEW,
    RUNNING,
    STOPPED
  }

  /** What {@link #health()} reports. */
  record Health(boolean degraded, String detail) {}

  private final StatusSettings settings;
  private final StatusDecoder decoder;
  private final StatusStore store;
  private final StatusMetrics metrics;
  private final MeterRegistry registry;
  private final Duration probeInterval;
  private final Duration probeTimeout;
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private final long startedNanos = System.nanoTime();
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long lastPollNanos = System.nanoTime();
  private volatile long lastContactNanos; // 0: never
  private volatile boolean reportedDegraded;
  private volatile long failingSinceNanos; // 0: the last iteration succeeded
  private volatile String lastFailure = "";
  private long lastProbeNanos = System.nanoTime();
  private long lastStackTraceNanos = System.nanoTime() - STACK_TRACE_INTERVAL.toNanos();
  private KafkaClientMetrics kafkaMetrics;
  private Thread thread;

  StatusListener(
      StatusSettings settings,
      StatusDecoder decoder,
      StatusStore store,
      StatusMetrics metrics,
      MeterRegistry registry) {
    this.settings = settings;
    this.decoder = decoder;
    this.store = store;
    this.metrics = metrics;
    this.registry = registry;
    Duration third = settings.maxSilence().dividedBy(3);
    this.probeInterval = min(third, PROBE_MAX_INTERVAL);
    this.probeTimeout = min(third, PROBE_MAX_TIMEOUT);
    Gauge.builder("herald.writer.status.last.poll.age", this, l -> ageSeconds(l.lastPollNanos))
        .description("Seconds since the status view last polled Kafka")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            "herald.writer.status.broker.contact.age",
            this,
            l -> l.lastContactNanos == 0 ? Double.NaN : ageSeconds(l.lastContactNanos))
        .description("Seconds since the status view last heard from the broker (NaN: never)")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder("herald.writer.status.degraded", this, l -> l.health().degraded() ? 1 : 0)
        .description(
            "1 while the status view lags (batches failing, or no poll or broker contact within"
                + " max-silence)")
        .register(registry);
  }

  /** The consumer settings: pass-through first, then what the guarantees rest on. */
  static Map<String, Object> consumerProperties(StatusSettings settings) {
    Map<String, Object> props = new HashMap<>(settings.consumerOverrides());
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "herald-writer-status");
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("status listener is " + state.get() + ", not NEW");
    }
    synchronized (this) {
      // Daemon: a writer that is never closed must not be kept alive by its status view.
      thread = Thread.ofPlatform().name("herald-writer-status").daemon(true).start(this::loop);
    }
    log.info(
        "Status view reading {} as group {} from {}",
        settings.topic(),
        settings.groupId(),
        settings.bootstrapServers());
  }

  /**
   * Degraded while batches fail (database or broker errors), or when the loop has not polled, or
   * not heard from the broker, within max-silence.
   */
  Health health() {
    State current = state.get();
    if (current != State.RUNNING) {
      return new Health(true, "status view " + current.name().toLowerCase());
    }
    Duration sincePoll = Duration.ofNanos(System.nanoTime() - lastPollNanos);
    long contact = lastContactNanos;
    Duration sinceContact =
        Duration.ofNanos(System.nanoTime() - (contact == 0 ? startedNanos : contact));
    if (sincePoll.compareTo(settings.maxSilence()) > 0) {
      return new Health(
          true,
          "DEGRADED: no poll for "
              + sincePoll.toSeconds()
              + "s (the loop is stuck or backing off); job statuses lag");
    }
    long failing = failingSinceNanos;
    if (failing != 0) {
      return new Health(
          true,
          "DEGRADED: applying status events has failed for "
              + Duration.ofNanos(System.nanoTime() - failing).toSeconds()
              + "s, retried every "
              + settings.failureBackoff()
              + "; job statuses lag. Last failure: "
              + lastFailure);
    }
    if (sinceContact.compareTo(settings.maxSilence()) > 0) {
      return new Health(
          true,
          "DEGRADED: "
              + (contact == 0 ? "never reached" : "no contact with")
              + " Kafka at "
              + settings.bootstrapServers()
              + " for "
              + sinceContact.toSeconds()
              + "s; job statuses lag, the API is unaffected");
    }
    return new Health(
        false,
        "reading "
            + settings.topic()
            + " as "
            + settings.groupId()
            + "; last poll "
            + sincePoll.toMillis()
            + "ms ago, "
            + (contact == 0
                ? "connecting to " + settings.bootstrapServers()
                : "broker contact " + sinceContact.toSeconds() + "s ago"));
  }

  private void loop() {
    try {
      while (state.get() == State.RUNNING) {
        ConsumerRecords<byte[], byte[]> records = ConsumerRecords.empty();
        try {
          KafkaConsumer<byte[], byte[]> kafka = connect();
          if (kafka == null) {
            break; // stopped while connecting
          }
          lastPollNanos = System.nanoTime();
          records = kafka.poll(settings.pollTimeout());
          lastPollNanos = System.nanoTime();
          if (records.isEmpty()) {
            probe(kafka);
          } else {
            handle(kafka, records);
          }
          failingSinceNanos = 0;
        } catch (WakeupException e) {
          if (state.get() == State.RUNNING) {
            log.warn("Status listener woken up while running; continuing", e);
          }
        } catch (Exception e) {
          if (state.get() != State.RUNNING) {
            break;
          }
          metrics.failure();
          if (failingSinceNanos == 0) {
            failingSinceNanos = System.nanoTime();
          }
          lastFailure = causes(e);
          logFailure(records.count(), e);
          recover(records);
          pause(settings.failureBackoff());
        }
        reportHealthChange();
      }
    } finally {
      closeConsumer();
    }
  }

  /**
   * Logs a failed batch: with its stack trace at most once per {@link #STACK_TRACE_INTERVAL}, so a
   * long outage retried every failure-backoff does not flood the log; always with the cause.
   */
  private void logFailure(int count, Exception e) {
    long now = System.nanoTime();
    if (now - lastStackTraceNanos >= STACK_TRACE_INTERVAL.toNanos()) {
      lastStackTraceNanos = now;
      log.error(
          "Status view: handling {} records from {} failed; reading them again in {}",
          count,
          settings.topic(),
          settings.failureBackoff(),
          e);
    } else {
      log.error(
          "Status view: handling {} records from {} failed again; reading them again in {}: {}",
          count,
          settings.topic(),
          settings.failureBackoff(),
          causes(e));
    }
  }

  private static String causes(Throwable e) {
    StringBuilder text = new StringBuilder(e.toString());
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      text.append(" <- ").append(cause);
    }
    return text.toString();
  }

  /** The consumer, created (and subscribed) on first use or after a failure discarded it. */
  private KafkaConsumer<byte[], byte[]> connect() {
    KafkaConsumer<byte[], byte[]> current = consumer;
    if (current != null) {
      return current;
    }
    KafkaConsumer<byte[], byte[]> created = new KafkaConsumer<>(consumerProperties(settings));
    consumer = created;
    if (state.get() != State.RUNNING) {
      return null; // close() may have missed it; the finally block closes it
    }
    kafkaMetrics = new KafkaClientMetrics(created);
    kafkaMetrics.bindTo(registry);
    created.subscribe(List.of(settings.topic()));
    return created;
  }

  private void handle(KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> records)
      throws Exception {
    lastContactNanos = System.nanoTime();
    List<StatusEvent> events = new ArrayList<>(records.count());
    List<Decoded.Invalid> invalid = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      switch (decoder.decode(record)) {
        case Decoded.Valid valid -> events.add(valid.event());
        case Decoded.Invalid bad -> invalid.add(bad);
      }
    }
    List<StatusStore.Outcome> outcomes = store.apply(events);
    // Committed: count and report before the offsets, which may still fail (then redelivered
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
    for (Decoded.Invalid bad : invalid) {
      metrics.invalid();
      log.error(
          "Status view skipped {}-{}@{}: {} ({})",
          bad.record().topic(),
          bad.record().partition(),
          bad.record().offset(),
          bad.reason(),
          bad.detail());
    }
    try {
      kafka.commitSync(nextOffsets(records));
    } catch (CommitFailedException e) {
      // The partitions moved to another member during the batch; it reads them from the last
      // committed offset, and the inbox turns what this member applied into duplicates.
      log.warn("Status view: offsets not committed after a rebalance; the new owner re-reads", e);
    }
  }

  /** When idle, asks the group coordinator something, so health knows the broker is reachable. */
  private void probe(KafkaConsumer<byte[], byte[]> kafka) {
    long now = System.nanoTime();
    if (now - lastContactNanos < probeInterval.toNanos()
        || now - lastProbeNanos < probeInterval.toNanos()) {
      return;
    }
    lastProbeNanos = now;
    try {
      kafka.committed(Set.of(new TopicPartition(settings.topic(), 0)), probeTimeout);
      lastContactNanos = System.nanoTime();
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      // Reported through health and the degraded gauge (with a log line on the change).
      log.debug("Status view: broker probe failed", e);
    }
  }

  private void reportHealthChange() {
    Health health = health();
    if (health.degraded() != reportedDegraded && state.get() == State.RUNNING) {
      reportedDegraded = health.degraded();
      if (health.degraded()) {
        log.warn("Status view {}", health.detail());
      } else {
        log.info("Status view recovered: {}", health.detail());
      }
    }
  }

  /** After a failure: re-read the batch; a consumer that itself failed is replaced. */
  private void recover(ConsumerRecords<byte[], byte[]> records) {
    KafkaConsumer<byte[], byte[]> kafka = consumer;
    if (kafka == null) {
      return;
    }
    try {
      Set<TopicPartition> assigned = kafka.assignment();
      for (TopicPartition partition : records.partitions()) {
        if (assigned.contains(partition)) {
          kafka.seek(partition, records.records(partition).getFirst().offset());
        }
      }
    } catch (RuntimeException e) {
      log.warn("Status view: cannot rewind; re-creating the Kafka consumer", e);
      closeConsumer();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      ConsumerRecords<byte[], byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      offsets.put(
          partition, new OffsetAndMetadata(records.records(partition).getLast().offset() + 1));
    }
    return offsets;
  }

  private void pause(Duration duration) {
    try {
      stopSignal.await(duration.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      state.set(State.STOPPED);
    }
  }

  private void closeConsumer() {
    KafkaConsumer<byte[], byte[]> kafka = consumer;
    consumer = null;
    if (kafkaMetrics != null) {
      kafkaMetrics.close();
      kafkaMetrics = null;
    }
    if (kafka != null) {
      try {
        kafka.close(CloseOptions.timeout(CLOSE_WAIT));
      } catch (RuntimeException e) {
        log.warn("Status view: closing the Kafka consumer failed", e);
      }
    }
  }

  /** Stops the loop (an in-flight batch finishes or rolls back) and waits for it. */
  @Override
  public void close() {
    State previous = state.getAndSet(State.STOPPED);
    if (previous == State.STOPPED) {
      return;
    }
    stopSignal.countDown();
    KafkaConsumer<byte[], byte[]> kafka = consumer;
    if (kafka != null) {
      kafka.wakeup();
    }
    Thread current;
    synchronized (this) {
      current = thread;
    }
    if (current != null) {
      try {
        current.join(CLOSE_WAIT.toMillis());
        if (current.isAlive()) {
          log.warn("Status view loop did not stop within {}", CLOSE_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    log.info("Status view for {} stopped", settings.topic());
  }

  private static double ageSeconds(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
