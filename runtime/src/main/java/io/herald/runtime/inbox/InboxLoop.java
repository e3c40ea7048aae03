package io.herald.runtime.inbox;

import io.herald.runtime.db.SqlFailure;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka inbox loop every Herald service that consumes a topic runs (the consumer's intake of
 * publication events, the writer's status view): one member of a consumer group on its own thread,
 * with a service's {@link InboxHandler} for decoding and applying.
 *
 * <p>Each poll is decoded; its valid values are applied in one database transaction, and only then
 * are its offsets due for commit, after every record set aside has been acknowledged: no offset
 * passes a record that was neither applied nor set aside. Due offsets are committed at most every
 * {@link #COMMIT_INTERVAL} while records keep coming, at once when a poll comes back empty, before
 * the partitions move to another member, and on close. A failure the {@link SqlFailure} rule calls
 * retriable (database or broker unavailable) re-reads the batch from its first offset after {@code
 * failure-backoff}; the inbox makes that harmless. A permanent one is retried one record per
 * transaction, so the one record that causes it is isolated and set aside ({@code
 * rejected_by_database}) instead of blocking its partition forever.
 *
 * <p>Never fatal to its process: the Kafka client is created on the loop thread and re-created
 * after a failure it caused, so an unresolvable or unreachable broker only makes the loop lag, and
 * {@link #health()} says so.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} any number of times; the state moves NEW ->
 * RUNNING -> STOPPED by compare-and-set only. The Kafka consumer is used only by the loop thread,
 * except for {@link KafkaConsumer#wakeup()}, which is thread-safe. {@link #health()} is
 * thread-safe.
 *
 * @param <T> what the handler makes of a valid record
 * @param <R> what applying one value gave
 */
public final class InboxLoop<T, R> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InboxLoop.class);
  private static final Duration PROBE_MAX_INTERVAL = Duration.ofSeconds(10);
  private static final Duration PROBE_MAX_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  /**
   * Offsets are committed at most this often while records keep coming. A commit is a round trip
   * the loop waits on and a write to the group's offsets topic; one per poll was, at a few records
   * per poll, one per record, for both the broker and the loop. What a crash re-reads because of
   * it, at most this much of the topic, the inbox skips as duplicates.
   */
  static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);

  /**
   * How long closing the Kafka consumer may take, after the due offsets are committed (bounded by
   * the same wait). Closing then only leaves the group, a courtesy: a member killed before this one
   * still holds a rebalance open until its session expires (45 s by default), and a close waiting
   * on the pending join would hold the whole process's shutdown that long. Past this bound the
   * group forgets the member by its session timeout, as after a crash.
   */
  static final Duration KAFKA_CLOSE_WAIT = Duration.ofSeconds(5);

  private static final Duration STACK_TRACE_INTERVAL = Duration.ofMinutes(1);

  /** The loop's lifecycle. */
  public enum State {
    NEW,
    RUNNING,
    STOPPED
  }

  /**
   * The loop's one health signal.
   *
   * @param degraded batches are failing, or no poll or no broker contact within max-silence, or the
   *     loop is not running
   * @param detail what a reader of {@code /health} needs to know (no secrets)
   */
  public record Health(boolean degraded, String detail) {}

  private final InboxSettings settings;
  private final InboxHandler<T, R> handler;
  private final MeterRegistry registry;
  private final Duration probeInterval;
  private final Duration probeTimeout;
  private final int maxPollRecords;
  private final Counter lingerDropped;
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
  // Offsets of batches applied but not committed yet, and when they last were: loop thread only.
  private final Map<TopicPartition, OffsetAndMetadata> dueOffsets = new HashMap<>();
  private long lastCommitNanos = System.nanoTime();
  // Partitions revoked, assigned or lost so far: loop thread only (the listener runs in poll).
  private long rebalances;
  private long lastStackTraceNanos = System.nanoTime() - STACK_TRACE_INTERVAL.toNanos();
  private KafkaClientMetrics kafkaMetrics;
  private Thread thread;

  /** A loop, not yet started; its gauges are registered at once. */
  public InboxLoop(InboxSettings settings, InboxHandler<T, R> handler, MeterRegistry registry) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.registry = Objects.requireNonNull(registry, "registry");
    Duration third = settings.maxSilence().dividedBy(3);
    this.probeInterval = min(third, PROBE_MAX_INTERVAL);
    this.probeTimeout = min(third, PROBE_MAX_TIMEOUT);
    this.maxPollRecords = settings.effectiveMaxPollRecords();
    String prefix = settings.metricPrefix();
    Gauge.builder(prefix + ".last.poll.age", this, l -> ageSeconds(l.lastPollNanos))
        .description("Seconds since the " + settings.name() + " last polled Kafka")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            prefix + ".broker.contact.age",
            this,
            l -> l.lastContactNanos == 0 ? Double.NaN : ageSeconds(l.lastContactNanos))
        .description(
            "Seconds since the " + settings.name() + " last heard from the broker (NaN: never)")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(prefix + ".degraded", this, l -> l.health().degraded() ? 1 : 0)
        .description(
            "1 while the "
                + settings.name()
                + " lags (batches failing, or no poll or broker contact within max-silence)")
        .register(registry);
    this.lingerDropped =
        Counter.builder(prefix + ".linger.dropped")
            .description(
                "Batches of "
                    + settings.name()
                    + " dropped unapplied and read again because the group rebalanced while"
                    + " the loop lingered")
            .register(registry);
  }

  /** The consumer settings: the pass-through first, then what the guarantees rest on. */
  public static Map<String, Object> consumerProperties(InboxSettings settings) {
    Map<String, Object> props = new HashMap<>(settings.consumerOverrides());
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, settings.clientId());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    if (settings.maxPollRecords() != null) {
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
    }
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  /** Starts the loop thread; returns at once (Kafka is reached in the background). */
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException(settings.name() + " is " + state.get() + ", not NEW");
    }
    synchronized (this) {
      // Daemon: a process that is never closed must not be kept alive by its inbox loop.
      thread =
          Thread.ofPlatform()
              .name("herald-" + settings.name().replace(' ', '-'))
              .daemon(true)
              .start(this::loop);
    }
    log.info(
        "{} reading {} as group {} from {}",
        capitalised(settings.name()),
        settings.topic(),
        settings.groupId(),
        settings.bootstrapServers());
  }

  /** The lifecycle state. */
  public State state() {
    return state.get();
  }

  /**
   * Degraded while batches fail (database or broker errors), when the loop has not polled, or not
   * heard from the broker, within max-silence, and whenever it is not running.
   */
  public Health health() {
    State current = state.get();
    if (current != State.RUNNING) {
      return new Health(true, settings.name() + " " + current.name().toLowerCase());
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
              + "s (the loop is stuck or backing off); "
              + settings.topic()
              + " lags");
    }
    long failing = failingSinceNanos;
    if (failing != 0) {
      return new Health(
          true,
          "DEGRADED: applying "
              + settings.name()
              + " has failed for "
              + Duration.ofNanos(System.nanoTime() - failing).toSeconds()
              + "s, retried every "
              + settings.failureBackoff()
              + ". Last failure: "
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
              + "s; "
              + settings.topic()
              + " lags");
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
            commit(kafka);
            probe(kafka);
          } else {
            records = linger(kafka, records);
            if (!records.isEmpty()) {
              handle(kafka, records);
            }
          }
          failingSinceNanos = 0;
        } catch (WakeupException e) {
          if (state.get() == State.RUNNING) {
            log.warn("{} woken up while running; continuing", settings.name(), e);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          state.set(State.STOPPED);
        } catch (Exception e) {
          if (state.get() != State.RUNNING) {
            break;
          }
          handler.failed(e);
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
    } catch (RuntimeException | Error e) {
      log.error("{} stopped by an unexpected failure", capitalised(settings.name()), e);
      state.set(State.STOPPED);
      throw e;
    } finally {
      closeConsumer();
    }
  }

  /**
   * After a poll that found records, polls on until the linger has passed since it or the batch
   * holds {@code max.poll.records} (its last poll may take it up to twice that), so that one
   * transaction applies what arrives meanwhile: at moderate rates the relay's transactions bring a
   * few records each, and every batch costs a transaction, its statements and a wake of what
   * follows. Idle, nothing changes (the first poll waits as before). A rebalance during the linger
   * drops the batch, its partitions rewound to be read again, since the records may then belong to
   * another member or come twice; a failure rewinds them before it is thrown.
   */
  private ConsumerRecords<byte[], byte[]> linger(
      KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> first) {
    if (settings.linger().isZero() || first.count() >= maxPollRecords) {
      return first;
    }
    long deadline = System.nanoTime() + settings.linger().toNanos();
    long rebalancesBefore = rebalances;
    // Linked: partitions stay in the order their records first came.
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> batch = new LinkedHashMap<>();
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    int count = add(batch, next, first);
    try {
      long left;
      while (count < maxPollRecords && (left = deadline - System.nanoTime()) > 0) {
        ConsumerRecords<byte[], byte[]> more = kafka.poll(Duration.ofNanos(left));
        lastPollNanos = System.nanoTime();
        count += add(batch, next, more);
        if (rebalances != rebalancesBefore) {
          recover(new ConsumerRecords<>(batch, next));
          lingerDropped.increment();
          log.info(
              "{}: the group rebalanced while a batch of {} records lingered; reading them again",
              capitalised(settings.name()),
              count);
          return ConsumerRecords.empty();
        }
      }
    } catch (RuntimeException e) {
      recover(new ConsumerRecords<>(batch, next));
      throw e;
    }
    return new ConsumerRecords<>(batch, next);
  }

  /** Appends {@code records} to {@code batch}, partition by partition; returns their count. */
  private static int add(
      Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> batch,
      Map<TopicPartition, OffsetAndMetadata> next,
      ConsumerRecords<byte[], byte[]> records) {
    for (TopicPartition partition : records.partitions()) {
      batch.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(records.records(partition));
    }
    next.putAll(records.nextOffsets());
    return records.count();
  }

  private void handle(KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> records)
      throws SQLException, InterruptedException {
    lastContactNanos = System.nanoTime();
    List<Decoded.Valid<T>> valid = new ArrayList<>(records.count());
    List<Future<?>> setAside = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      switch (handler.decode(record)) {
        case Decoded.Valid<T> v -> valid.add(v);
        case Decoded.Invalid<T> invalid -> setAside.add(handler.reject(invalid));
      }
    }
    store(valid, setAside);
    for (Future<?> future : setAside) {
      try {
        future.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            settings.name() + ": a record set aside was not acknowledged", e.getCause());
      }
    }
    dueOffsets.putAll(nextOffsets(records));
    if (System.nanoTime() - lastCommitNanos >= COMMIT_INTERVAL.toNanos()) {
      commit(kafka);
    }
  }

  /** Commits the due offsets, if any; a failure other than a lost group membership is thrown. */
  private void commit(KafkaConsumer<byte[], byte[]> kafka) {
    lastCommitNanos = System.nanoTime();
    Map<TopicPartition, OffsetAndMetadata> offsets = takeDue(List.copyOf(dueOffsets.keySet()));
    if (offsets.isEmpty()) {
      return;
    }
    try {
      kafka.commitSync(offsets);
    } catch (CommitFailedException e) {
      // The partitions moved to another member; it reads them from the last committed offset, and
      // the inbox turns what this member applied since into duplicates.
      log.warn(
          "{}: offsets not committed after a rebalance; the new owner re-reads",
          settings.name(),
          e);
    } catch (RuntimeException e) {
      // Due again with the next commit, unless a later batch of the same partition replaced them.
      offsets.forEach(dueOffsets::putIfAbsent);
      throw e;
    }
  }

  /** Removes the due offsets of {@code partitions} and returns them, for one commit. */
  private Map<TopicPartition, OffsetAndMetadata> takeDue(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata offset = dueOffsets.remove(partition);
      if (offset != null) {
        offsets.put(partition, offset);
      }
    }
    return offsets;
  }

  /**
   * The partitions are about to move to another member, which starts from their committed offsets:
   * commit what this member applied of them. Runs on the loop thread, inside {@code poll}.
   */
  private void commitRevoked(
      KafkaConsumer<byte[], byte[]> kafka, Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = takeDue(partitions);
    if (offsets.isEmpty()) {
      return;
    }
    try {
      kafka.commitSync(offsets);
    } catch (WakeupException | InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      log.warn(
          "{}: offsets of revoked partitions not committed; the new owner re-reads them",
          settings.name(),
          e);
    }
  }

  /** One transaction for the batch; if that fails for a permanent reason, one per record. */
  private void store(List<Decoded.Valid<T>> valid, List<Future<?>> setAside) throws SQLException {
    if (valid.isEmpty()) {
      return;
    }
    List<T> values = valid.stream().map(Decoded.Valid::value).toList();
    try {
      handler.applied(values, handler.apply(values));
      return;
    } catch (SQLException e) {
      if (SqlFailure.isRetriable(e)) {
        throw e;
      }
      log.warn(
          "{}: a batch of {} records was refused by the database; isolating the record that causes it",
          capitalised(settings.name()),
          valid.size(),
          e);
    }
    for (Decoded.Valid<T> record : valid) {
      List<T> one = List.of(record.value());
      try {
        handler.applied(one, handler.apply(one));
      } catch (SQLException e) {
        if (SqlFailure.isRetriable(e)) {
          throw e;
        }
        setAside.add(
            handler.reject(
                new Decoded.Invalid<>(
                    record.record(),
                    "rejected_by_database",
                    "SQLState " + e.getSQLState() + ": " + e.getMessage())));
      }
    }
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
    created.subscribe(
        List.of(settings.topic()),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            rebalances++;
            commitRevoked(created, partitions);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            rebalances++;
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> partitions) {
            rebalances++;
            // Already another member's: a commit would be refused, and it re-reads them anyway.
            dueOffsets.keySet().removeAll(partitions);
          }
        });
    return created;
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
      log.debug("{}: broker probe failed", settings.name(), e);
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
          "{}: handling {} records from {} failed; reading them again in {}",
          capitalised(settings.name()),
          count,
          settings.topic(),
          settings.failureBackoff(),
          e);
    } else {
      log.error(
          "{}: handling {} records from {} failed again; reading them again in {}: {}",
          capitalised(settings.name()),
          count,
          settings.topic(),
          settings.failureBackoff(),
          causes(e));
    }
  }

  private void reportHealthChange() {
    Health health = health();
    if (health.degraded() != reportedDegraded && state.get() == State.RUNNING) {
      reportedDegraded = health.degraded();
      if (health.degraded()) {
        log.warn("{} {}", capitalised(settings.name()), health.detail());
      } else {
        log.info("{} recovered: {}", capitalised(settings.name()), health.detail());
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
      log.warn("{}: cannot rewind; re-creating the Kafka consumer", settings.name(), e);
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
      commitBeforeClose(kafka);
      try {
        kafka.close(CloseOptions.timeout(KAFKA_CLOSE_WAIT));
      } catch (RuntimeException e) {
        log.warn("{}: closing the Kafka consumer failed", settings.name(), e);
      }
    }
  }

  /**
   * Commits the due offsets before the consumer closes, within {@link #KAFKA_CLOSE_WAIT}; what is
   * not committed the next member re-reads, and the inbox skips.
   */
  private void commitBeforeClose(KafkaConsumer<byte[], byte[]> kafka) {
    Map<TopicPartition, OffsetAndMetadata> offsets = takeDue(List.copyOf(dueOffsets.keySet()));
    if (offsets.isEmpty()) {
      return;
    }
    // close() wakes the consumer up; a wake-up not yet consumed ends the first attempt at once.
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        kafka.commitSync(offsets, KAFKA_CLOSE_WAIT);
        return;
      } catch (WakeupException e) {
        if (attempt == 2) {
          log.warn("{}: offsets not committed before closing", settings.name(), e);
        }
      } catch (KafkaException e) {
        log.warn("{}: offsets not committed before closing; re-read later", settings.name(), e);
        return;
      }
    }
  }

  /** Stops the loop (an in-flight batch finishes or rolls back) and waits for it. Idempotent. */
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
          log.warn("{} did not stop within {}", capitalised(settings.name()), CLOSE_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    log.info("{} for {} stopped", capitalised(settings.name()), settings.topic());
  }

  private static String causes(Throwable e) {
    StringBuilder text = new StringBuilder(e.toString());
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      text.append(" <- ").append(cause);
    }
    return text.toString();
  }

  private static String capitalised(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static double ageSeconds(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
