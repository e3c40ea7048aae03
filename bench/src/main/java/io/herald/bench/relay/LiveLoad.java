package io.herald.bench.relay;

import io.herald.bench.suite.Latency;
import io.herald.relay.it.OutboxRows;
import io.herald.relay.it.RelayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Open-loop live load for whatever tails the outbox into the fixture's publication-events topic (a
 * relay, Kafka Connect): one outbox row per transaction at a fixed rate, each at its scheduled
 * moment, and each row's latency from its commit to its arrival at a consumer of the topic (matched
 * by the {@code id} header), so a stalled pipeline cannot hide the stall.
 *
 * <p>Two consumers read the topic side by side. The latency that counts is the {@code
 * read_committed} one's: what Herald's consumer reads, and what any reader that must not see an
 * aborted record reads. The {@code read_uncommitted} one sees a record once the broker has
 * acknowledged it, before its transaction commits: for a relay the two split its latency into
 * getting the record to Kafka and committing its transaction; for a non-transactional producer
 * (Kafka Connect standalone) they are the same.
 */
public final class LiveLoad {

  /**
   * The system property naming a directory to write each load's per-event timeline to, a CSV file
   * per load (a diagnosis of the tail; unset, none is written): each row's commit, the record's
   * {@code CreateTime} (Debezium's outbox router stamps the change event's {@code ts_ms}, when the
   * connector's streaming thread made the event, for the relay and Kafka Connect alike), and its
   * arrival at the {@code read_uncommitted} and {@code read_committed} readers, in milliseconds
   * since the load's first commit, and the commit on the wall clock (milliseconds since the epoch),
   * to place the events beside a GC log or a JFR recording of the processes. The {@code CreateTime}
   * is the wall clock's in whole milliseconds, so a split at it is good to about a millisecond.
   */
  public static final String TIMELINE_PROPERTY = "herald.bench.live-timeline";

  private static final AtomicInteger TIMELINES = new AtomicInteger();

  /** How long a load waits for its rows to arrive. */
  private static final Duration ARRIVAL_WAIT = Duration.ofMinutes(2);

  private LiveLoad() {}

  /**
   * Latencies of one offered load, each in microseconds ({@link Latency}) of the rows committed
   * after the warm-up: {@code micros} to a {@code read_committed} reader, {@code
   * acknowledgedMicros} to a {@code read_uncommitted} one; the worst {@code read_committed} latency
   * of every second of the run, warm-up included, in milliseconds; and the CPU seconds the measured
   * process spent from the warm-up's end until the last row arrived, the window the latencies cover
   * (NaN when nothing was measured).
   */
  public record Latencies(
      Histogram micros,
      SortedMap<Integer, Long> worstPerSecond,
      Histogram acknowledgedMicros,
      double countedCpuSeconds) {

    /** The rows the latencies (and {@link #countedCpuSeconds}) cover. */
    public long countedEvents() {
      return micros.getTotalCount();
    }
  }

  /**
   * Offers {@code events} rows at {@code perSecond}; the latencies of those committed after the
   * first {@code warmUpSeconds} seconds, and the worst of every second. Waits up to two minutes for
   * the rows to arrive.
   */
  public static Latencies offer(RelayFixture fixture, int perSecond, int events, int warmUpSeconds)
      throws Exception {
    return offer(fixture, perSecond, events, warmUpSeconds, () -> Double.NaN);
  }

  /**
   * {@link #offer(RelayFixture, int, int, int)}, with the CPU of the process that tails the outbox
   * ({@code cpuSeconds}, its total so far) read when the first row after the warm-up is due and
   * once the last row has arrived: the CPU of the same window as the latencies, without the
   * compilation and first-batch paths of a process that started streaming seconds before.
   */
  public static Latencies offer(
      RelayFixture fixture, int perSecond, int events, int warmUpSeconds, DoubleSupplier cpuSeconds)
      throws Exception {
    return offer(fixture, perSecond, events, warmUpSeconds, cpuSeconds, ARRIVAL_WAIT);
  }

  /** As above, waiting {@code arrivalWait} for the rows to arrive (tests wait less). */
  static Latencies offer(
      RelayFixture fixture,
      int perSecond,
      int events,
      int warmUpSeconds,
      DoubleSupplier cpuSeconds,
      Duration arrivalWait)
      throws Exception {
    Map<String, Long> committedAt = new ConcurrentHashMap<>();
    // Named before their insert, so an arrival is recognised even before its commit is noted.
    Set<String> offered = ConcurrentHashMap.newKeySet();
    // The wall clock against the monotonic one, to place the records' CreateTime on the timeline.
    Instant wall = Instant.now();
    long wallMinusNanos =
        wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - System.nanoTime();
    try (Reader committed = new Reader(fixture, "read_committed");
        Reader acknowledged = new Reader(fixture, "read_uncommitted")) {
      long deadline = System.nanoTime() + arrivalWait.toNanos();
      Map<String, Arrival> arrivedAt;
      Map<String, Arrival> acknowledgedAt;
      double counted;
      ExecutorService threads = Executors.newFixedThreadPool(3);
      try {
        // Taken as they end, so a reader that fails fails the load at once, not after the writer.
        CompletionService<Ended> ended = new ExecutorCompletionService<>(threads);
        Future<Ended> committedArrivals =
            ended.submit(() -> Ended.read(committed.arrivals(offered, events, deadline)));
        Future<Ended> acknowledgedArrivals =
            ended.submit(() -> Ended.read(acknowledged.arrivals(offered, events, deadline)));
        Future<Ended> written =
            ended.submit(
                () ->
                    Ended.written(
                        write(
                            fixture,
                            perSecond,
                            events,
                            warmUpSeconds * perSecond,
                            cpuSeconds,
                            offered,
                            committedAt)));
        long end = deadline + TimeUnit.MINUTES.toNanos(1);
        for (int task = 0; task < 3; task++) {
          Future<Ended> next = ended.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
          if (next == null) {
            throw new IllegalStateException(
                "the live load's writer or readers did not end a minute past their "
                    + arrivalWait
                    + " for the rows");
          }
          next.get();
        }
        arrivedAt = committedArrivals.get().arrivals();
        acknowledgedAt = acknowledgedArrivals.get().arrivals();
        counted = cpuSeconds.getAsDouble() - written.get().cpuAtWarmUpEnd();
      } catch (Exception e) {
        stop(threads, committed, acknowledged).ifPresent(e::addSuppressed);
        throw e;
      }
      Optional<IllegalStateException> stuck = stop(threads, committed, acknowledged);
      if (stuck.isPresent()) {
        throw stuck.get();
      }
      missing(committedAt.size(), arrivedAt.size(), "read_committed", arrivalWait);
      missing(committedAt.size(), acknowledgedAt.size(), "read_uncommitted", arrivalWait);
      long first = committedAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
      // Both filled by this thread once the readers have finished, so neither needs a lock.
      Histogram latencies = Latency.histogram();
      Histogram acknowledgedLatencies = Latency.histogram();
      SortedMap<Integer, Long> worstPerSecond = new TreeMap<>();
      // Every committed row reached both readers (checked above).
      committedAt.forEach(
          (id, commit) -> {
            // Worst latency per second of the run: tells one long stall from many short ones.
            int second = (int) ((commit - first) / 1_000_000_000L);
            long latency = arrivedAt.get(id).nanos() - commit;
            worstPerSecond.merge(second, latency / 1_000_000L, Math::max);
            if (second >= warmUpSeconds) {
              Latency.recordNanos(latencies, latency);
              Latency.recordNanos(acknowledgedLatencies, acknowledgedAt.get(id).nanos() - commit);
            }
          });
      String timeline = System.getProperty(TIMELINE_PROPERTY, "");
      if (!timeline.isBlank()) {
        writeTimeline(
            Path.of(timeline)
                .resolve(
                    String.format(
                        Locale.ROOT,
                        "live-%d-per-s-%d.csv",
                        perSecond,
                        TIMELINES.incrementAndGet())),
            committedAt,
            first,
            wallMinusNanos,
            acknowledgedAt,
            arrivedAt);
      }
      return new Latencies(latencies, worstPerSecond, acknowledgedLatencies, counted);
    }
  }

  /**
   * What one of the load's tasks ended with: a reader its arrivals, the writer the measured
   * process's CPU seconds when the warm-up ended (what the counted window starts from).
   */
  private record Ended(Map<String, Arrival> arrivals, double cpuAtWarmUpEnd) {
    static Ended read(Map<String, Arrival> arrivals) {
      return new Ended(arrivals, Double.NaN);
    }

    static Ended written(double cpuAtWarmUpEnd) {
      return new Ended(Map.of(), cpuAtWarmUpEnd);
    }
  }

  /**
   * Stops the load's threads, a reader still polling (the writer failed) before its consumer is
   * closed; the failure to report when they do not stop in 10 s.
   */
  private static Optional<IllegalStateException> stop(
      ExecutorService threads, Reader committed, Reader acknowledged) throws InterruptedException {
    committed.wakeup();
    acknowledged.wakeup();
    threads.shutdownNow();
    return threads.awaitTermination(10, TimeUnit.SECONDS)
        ? Optional.empty()
        : Optional.of(new IllegalStateException("the live load's threads did not stop in 10 s"));
  }

  /**
   * Fails the load when a reader got fewer of its rows than were committed: a row that never
   * arrives is lost (or stuck behind an open transaction), not merely late, and the two readers'
   * latencies would no longer cover the same rows.
   */
  private static void missing(int committed, int arrived, String reader, Duration arrivalWait) {
    if (arrived < committed) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "%,d of %,d committed rows did not reach the %s reader within %s",
              committed - arrived,
              committed,
              reader,
              arrivalWait));
    }
  }

  /** A record's arrival at a reader ({@link System#nanoTime()}) and its {@code CreateTime}. */
  private record Arrival(long nanos, long createdMillis) {}

  private static void writeTimeline(
      Path file,
      Map<String, Long> committedAt,
      long first,
      long wallMinusNanos,
      Map<String, Arrival> acknowledgedAt,
      Map<String, Arrival> arrivedAt)
      throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("commit_ms,created_ms,acknowledged_ms,committed_ms,commit_epoch_ms");
    committedAt.entrySet().stream()
        .sorted(Map.Entry.comparingByValue())
        .forEach(
            entry -> {
              Arrival acked = acknowledgedAt.get(entry.getKey());
              lines.add(
                  String.format(
                      Locale.ROOT,
                      "%.3f,%.3f,%.3f,%.3f,%.3f",
                      (entry.getValue() - first) / 1e6,
                      (acked.createdMillis() * 1_000_000L - wallMinusNanos - first) / 1e6,
                      (acked.nanos() - first) / 1e6,
                      (arrivedAt.get(entry.getKey()).nanos() - first) / 1e6,
                      (entry.getValue() + wallMinusNanos) / 1e6));
            });
    Files.createDirectories(file.getParent());
    Files.write(file, lines);
  }

  /** A consumer of the topic at one isolation level, at its end when made. */
  private static final class Reader implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;

    Reader(RelayFixture fixture, String isolation) {
      Map<String, Object> config = new HashMap<>();
      config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.context().bootstrapServers());
      config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
      config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
      consumer =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> partitions = partitions(consumer, fixture.publicationEvents);
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
    }

    /**
     * When each offered row arrived ({@link System#nanoTime()}), until all {@code events} have or
     * {@code deadline} passes. Only this load's rows count: a relay still publishing an earlier
     * backlog, or publishing again what it had sent before a restart, must not end the wait early.
     */
    Map<String, Arrival> arrivals(Set<String> offered, int events, long deadline) {
      Map<String, Arrival> arrivedAt = new HashMap<>();
      while (arrivedAt.size() < events && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
          long now = System.nanoTime();
          String id = new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
          if (offered.contains(id)) {
            arrivedAt.putIfAbsent(id, new Arrival(now, record.timestamp()));
          }
        }
      }
      return arrivedAt;
    }

    /** Makes a {@link #arrivals} in progress on another thread stop (its poll throws). */
    void wakeup() {
      consumer.wakeup();
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  /**
   * Writes the rows on their schedule; returns {@code cpuSeconds} as read when row {@code
   * firstCounted} was due (NaN when the load has no row past its warm-up).
   */
  private static double write(
      RelayFixture fixture,
      int perSecond,
      int events,
      int firstCounted,
      DoubleSupplier cpuSeconds,
      Set<String> offered,
      Map<String, Long> committedAt) {
    double cpuAtFirstCounted = Double.NaN;
    String sql =
        "INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload)"
            + " VALUES (?, 'publication', ?, 'PublicationRequested', 't1', ?::jsonb)";
    try (Connection connection = fixture.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement(sql)) {
      long start = System.nanoTime();
      for (int i = 0; i < events; i++) {
        long due = start + i * (1_000_000_000L / perSecond);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        if (i == firstCounted) {
          cpuAtFirstCounted = cpuSeconds.getAsDouble();
        }
        UUID id = UUID.randomUUID();
        offered.add(id.toString());
        insert.setObject(1, id);
        insert.setString(2, OutboxRows.key(i, 50));
        insert.setString(3, OutboxRows.payload(i));
        insert.executeUpdate();
        committedAt.put(id.toString(), System.nanoTime());
      }
    } catch (Exception e) {
      throw new IllegalStateException("latency writer failed", e);
    }
    return cpuAtFirstCounted;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(info -> new TopicPartition(topic, info.partition()))
        .toList();
  }
}
