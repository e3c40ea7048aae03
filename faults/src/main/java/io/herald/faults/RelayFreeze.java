package io.herald.faults;

import io.herald.demo.Pipeline;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * F2: two relays, one streaming and one standing by; SIGSTOP the streaming one, wait until the
 * standby streams, keep the frozen one stopped a seeded while longer, SIGCONT it, wait until it
 * stands by again. Which relay streams alternates between injections; the first injection starts
 * the second relay ({@code relay-2}, {@link Pipeline#startStandbyRelay}).
 *
 * <p>How the standby takes over: a frozen process keeps its TCP sessions (its kernel still answers
 * keepalives), so PostgreSQL ends the leader-lock session only by its {@code idle_session_timeout}
 * ({@code relay.standby.dead-peer-timeout}, 10 s: the streaming relay uses the session every poll
 * interval, a frozen one does not); the standby then takes the lock and ends the walsender the
 * frozen relay still holds the slot with ({@code pg_terminate_backend}) before its engine starts.
 * The woken relay finds its lock session gone, stops its engine and stands by.
 *
 * <p>Checked per injection, as this class's own invariants: (a) one reader on the slot at a time,
 * sampled every {@link #SAMPLE_EVERY} through the fault from {@code pg_stat_replication}
 * (walsenders of the pipeline's database in state {@code streaming}; at most 1) and {@code
 * pg_replication_slots.active_pid}; (b) the woken relay publishes nothing, judged at the broker
 * ({@code Admin.describeProducers}). The frozen relay's producer is the one that appended last,
 * read {@link #SETTLE} after the SIGSTOP (when nothing the frozen process sent can still be on its
 * way); its state per partition is read again right before the SIGCONT and once the woken relay
 * stands by. Relays of one slot share a {@code transactional.id}, so the relay taking over has the
 * same producer id at a higher epoch and the broker refuses the lower one: any epoch going back
 * after the SIGCONT is a write of the woken relay. Were the producers distinct (no shared id), any
 * change of the frozen producer's state after the SIGCONT would be. Its published-events counter is
 * also read before the SIGSTOP and after it stands by again ({@code woken_published}, a figure
 * only: the read before the SIGSTOP races with the relay's own publishing). The checker covers 0
 * lost.
 */
final class RelayFreeze implements FaultClass {

  static final String STANDBY = "relay-2";

  private static final List<String> RELAYS = List.of("relay", STANDBY);
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(100);
  private static final Duration SETTLE = Duration.ofSeconds(1);
  private static final Duration TAKEOVER_TIMEOUT = Duration.ofSeconds(120);

  /** Rows committed just before each SIGSTOP (dest-a: the consumer delivers them in seconds). */
  private static final int BURST_ROWS = 1000;

  private static final int MIN_EXTRA_FROZEN_MILLIS = 500;
  private static final int MAX_EXTRA_FROZEN_MILLIS = 4000;

  /** Walsenders of one database streaming, and the pid reading the slot (null when none). */
  private static final String READERS =
      "SELECT (SELECT count(*) FROM pg_stat_replication r JOIN pg_stat_activity a ON a.pid = r.pid"
          + "   WHERE a.datname = ? AND r.state = 'streaming'),"
          + " (SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?)";

  private final StackContext stack;
  private final List<String> topics;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private boolean standbyStarted;
  private BulkOutbox burst;
  private int bursts;
  private int maxReaders;
  private int readerChanges;
  private long maxTakeoverMillis;
  private long wokenPublished;
  private long wokenProducerSends;
  private final List<String> violations = new ArrayList<>();

  /**
   * @param stack the IT class's stack: its database and slot are the pipeline's, its topic names
   *     those {@code PipelineSettings.isolated} gives the pipeline
   */
  RelayFreeze(StackContext stack) {
    this.stack = stack;
    this.topics = List.of(stack.topic("publication-events"), stack.topic("delivery-events"));
  }

  @Override
  public String id() {
    return "F2";
  }

  @Override
  public String description() {
    return "SIGSTOP the streaming relay, the standby takes over, then SIGCONT: one reader on the"
        + " slot at a time; 0 lost; the woken relay publishes nothing";
  }

  @Override
  public String inject(Pipeline pipeline, DestinationSimulator simulator, Random random)
      throws Exception {
    if (!standbyStarted) {
      pipeline.startStandbyRelay(STANDBY);
      standbyStarted = true;
      burst =
          new BulkOutbox(stack, null, pipeline, random.nextLong(), TAKEOVER_TIMEOUT, System.out);
    }
    await(pipeline, "one relay streaming", p -> streamingRelay(p).isPresent());
    String active = streamingRelay(pipeline).orElseThrow();
    String other = active.equals("relay") ? STANDBY : "relay";
    int extra =
        MIN_EXTRA_FROZEN_MILLIS + random.nextInt(MAX_EXTRA_FROZEN_MILLIS - MIN_EXTRA_FROZEN_MILLIS);
    ChildJvm frozen = pipeline.process(active);
    long publishedBefore = metric(pipeline, active, "herald_relay_events_published_total");
    Sampler sampler = new Sampler();
    Thread sampling = Thread.ofPlatform().name("faults-slot-readers").start(sampler);
    long takeover;
    long sent = 0;
    Map<TopicPartition, ProducerState> atWake;
    long frozenProducer;
    boolean shared;
    try (Admin admin = admin()) {
      // A backlog the frozen relay holds in memory (engine queue, batches in flight) when it stops:
      // what it could publish after its SIGCONT.
      burst.write("f2-burst-" + (++bursts), BURST_ROWS);
      long stopped = System.nanoTime();
      frozen.signal("STOP");
      try {
        // Whatever the frozen process had sent is at the broker by now.
        Thread.sleep(SETTLE.toMillis());
        frozenProducer = latest(producers(admin));
        await(pipeline, other + " streaming", p -> streams(p, other));
        takeover = Duration.ofNanos(System.nanoTime() - stopped).toMillis();
        Thread.sleep(extra);
        shared = latest(producers(admin)) == frozenProducer;
        atWake = states(admin, frozenProducer);
      } finally {
        frozen.signal("CONT");
      }
      String woken = active;
      await(
          pipeline,
          woken + " standing by again",
          p -> !p.process(woken).isAlive() || metricOr(p, woken, "herald_relay_standby", 0) == 1);
      if (!frozen.isAlive()) {
        violations.add(
            woken + " exited after its SIGCONT instead of standing by: " + frozen.logFile());
        pipeline.restart(woken);
      }
      Map<TopicPartition, ProducerState> after = states(admin, frozenProducer);
      List<String> writes = new ArrayList<>();
      for (Map.Entry<TopicPartition, ProducerState> partition : after.entrySet()) {
        ProducerState was = atWake.get(partition.getKey());
        ProducerState now = partition.getValue();
        long appended = wokenAppends(was, now, shared);
        if (appended > 0) {
          sent += appended;
          writes.add(partition.getKey() + ": " + describe(was) + " -> " + describe(now));
        }
      }
      wokenProducerSends += sent;
      if (sent > 0) {
        violations.add(
            woken
                + " published "
                + sent
                + " record(s) with producer "
                + frozenProducer
                + (shared ? " (shared by both relays)" : "")
                + " after its SIGCONT: "
                + writes);
      }
    } finally {
      sampler.stop();
      sampling.join(TimeUnit.SECONDS.toMillis(10));
    }
    if (sampler.failure != null) {
      throw sampler.failure;
    }
    long published =
        metricOr(pipeline, active, "herald_relay_events_published_total", 0) - publishedBefore;
    wokenPublished += published;
    maxReaders = Math.max(maxReaders, sampler.most.get());
    readerChanges += sampler.changes.get();
    if (sampler.most.get() > 1) {
      violations.add(
          sampler.most.get()
              + " walsenders streamed from the slot at once while "
              + active
              + " was frozen");
    }
    maxTakeoverMillis = Math.max(maxTakeoverMillis, takeover);
    if (!pipeline.process("relay").isAlive() || !pipeline.process(STANDBY).isAlive()) {
      violations.add("a relay is not alive after the fault");
    }
    return String.format(
        "SIGSTOP %s, %s streaming %d ms later, CONT after %d ms more; slot readers at once max %d,"
            + " reader changes %d; woken relay's producer sent %d, its published counter +%d",
        active, other, takeover, extra, sampler.most.get(), sampler.changes.get(), sent, published);
  }

  @Override
  public RoundChecks endRound() {
    Map<String, Long> figures = new LinkedHashMap<>();
    figures.put("max_slot_readers", (long) maxReaders);
    figures.put("slot_reader_changes", (long) readerChanges);
    figures.put("max_takeover_ms", maxTakeoverMillis);
    figures.put("woken_producer_sends", wokenProducerSends);
    figures.put("woken_published", wokenPublished);
    RoundChecks checks = new RoundChecks(figures, violations);
    maxReaders = 0;
    readerChanges = 0;
    maxTakeoverMillis = 0;
    wokenProducerSends = 0;
    wokenPublished = 0;
    violations.clear();
    return checks;
  }

  private Optional<String> streamingRelay(Pipeline pipeline) {
    List<String> streaming = new ArrayList<>();
    for (String relay : RELAYS) {
      if (streams(pipeline, relay)) {
        streaming.add(relay);
      }
    }
    return streaming.size() == 1 ? Optional.of(streaming.getFirst()) : Optional.empty();
  }

  private boolean streams(Pipeline pipeline, String relay) {
    return metricOr(pipeline, relay, "herald_relay_streaming", 0) == 1;
  }

  /** Polls {@code done} until it holds; fails the injection after {@link #TAKEOVER_TIMEOUT}. */
  private String await(Pipeline pipeline, String what, Predicate<Pipeline> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TAKEOVER_TIMEOUT.toNanos();
    while (!done.test(pipeline)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not " + what + " within " + TAKEOVER_TIMEOUT);
      }
      // Nothing to wait on but the relays' own lock polling.
      Thread.sleep(100);
    }
    return what;
  }

  private long metric(Pipeline pipeline, String relay, String name)
      throws IOException, InterruptedException {
    URI uri = pipeline.metricsUris().get(relay);
    HttpRequest get = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
    String text = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        String[] parts = line.trim().split(" ");
        return (long) Double.parseDouble(parts[parts.length - 1]);
      }
    }
    throw new IOException("no " + name + " in " + uri);
  }

  /** {@link #metric}, or {@code otherwise} while the relay does not answer (frozen, starting). */
  private long metricOr(Pipeline pipeline, String relay, String name, long otherwise) {
    try {
      return metric(pipeline, relay, name);
    } catch (IOException e) {
      // A frozen or restarting relay does not answer: the caller polls again.
      return otherwise;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return otherwise;
    }
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            30_000));
  }

  private List<TopicPartition> partitions(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<TopicPartition> partitions = new ArrayList<>();
    for (TopicDescription topic :
        admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
      topic
          .partitions()
          .forEach(p -> partitions.add(new TopicPartition(topic.name(), p.partition())));
    }
    return partitions;
  }

  /** Every producer known to the event topics' partitions, by id (its latest state). */
  private Map<Long, ProducerState> producers(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<Long, ProducerState> producers = new HashMap<>();
    for (PartitionProducerState partition :
        admin.describeProducers(partitions(admin)).all().get(30, TimeUnit.SECONDS).values()) {
      for (ProducerState state : partition.activeProducers()) {
        producers.merge(
            state.producerId(), state, (a, b) -> a.lastTimestamp() >= b.lastTimestamp() ? a : b);
      }
    }
    return producers;
  }

  /** The producer that appended last: the streaming relay's. */
  private static long latest(Map<Long, ProducerState> producers) {
    return producers.values().stream()
        .max((a, b) -> Long.compare(a.lastTimestamp(), b.lastTimestamp()))
        .map(ProducerState::producerId)
        .orElseThrow(() -> new IllegalStateException("no producer has written the event topics"));
  }

  /** {@code producer}'s state per partition where it has one. */
  private Map<TopicPartition, ProducerState> states(Admin admin, long producer)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, ProducerState> states = new HashMap<>();
    for (Map.Entry<TopicPartition, PartitionProducerState> partition :
        admin.describeProducers(partitions(admin)).all().get(30, TimeUnit.SECONDS).entrySet()) {
      for (ProducerState state : partition.getValue().activeProducers()) {
        if (state.producerId() == producer) {
          states.put(partition.getKey(), state);
        }
      }
    }
    return states;
  }

  /**
   * Records the woken relay appended to one partition, judged from the frozen producer's state
   * right before the SIGCONT ({@code was}, null where it had none) and after ({@code now}).
   *
   * @param shared whether the relay that took over writes with the same producer id (one {@code
   *     transactional.id}): then only an epoch going back is the woken relay's, since every later
   *     append of the new leader carries a higher one
   */
  static long wokenAppends(ProducerState was, ProducerState now, boolean shared) {
    if (shared) {
      return was != null && now.producerEpoch() < was.producerEpoch()
          ? Math.max(1, now.lastSequence() + 1)
          : 0;
    }
    if (was == null) {
      return now.lastSequence() + 1;
    }
    if (now.producerEpoch() != was.producerEpoch()) {
      return Math.max(1, now.lastSequence() + 1);
    }
    return Math.max(0, now.lastSequence() - was.lastSequence());
  }

  private static String describe(ProducerState state) {
    return state == null
        ? "none"
        : "epoch " + state.producerEpoch() + " sequence " + state.lastSequence();
  }

  /** Samples the slot's readers until stopped; owned by one injection. */
  private final class Sampler implements Runnable {
    private volatile boolean running = true;
    private final AtomicInteger most = new AtomicInteger();
    private final AtomicInteger changes = new AtomicInteger();
    private final AtomicLong lastPid = new AtomicLong(-1);
    private volatile Exception failure;

    void stop() {
      running = false;
    }

    @Override
    public void run() {
      try (Connection connection =
              DriverManager.getConnection(stack.jdbcUrl(), stack.user(), stack.password());
          PreparedStatement select = connection.prepareStatement(READERS)) {
        select.setString(1, stack.database());
        select.setString(2, stack.slot());
        while (running) {
          try (ResultSet row = select.executeQuery()) {
            row.next();
            most.accumulateAndGet(row.getInt(1), Math::max);
            long pid = row.getLong(2);
            if (!row.wasNull()) {
              long previous = lastPid.getAndSet(pid);
              if (previous != -1 && previous != pid) {
                changes.incrementAndGet();
              }
            }
          }
          Thread.sleep(SAMPLE_EVERY.toMillis());
        }
      } catch (SQLException e) {
        failure = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
