package io.herald.relay;

import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.RelayEngine;
import io.herald.relay.ha.LeaderLock;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import io.herald.relay.offsets.OffsetTopic;
import io.herald.relay.offsets.StoredOffsets;
import io.herald.relay.sink.KafkaBatchSink;
import io.herald.relay.sink.OutboxRecordConverter;
import io.herald.relay.slot.PostgresSlots;
import io.herald.relay.slot.SlotGapException;
import io.herald.relay.slot.SlotGuard;
import io.herald.relay.slot.SlotLagMonitor;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's life: wait for the leader lock, check that streaming cannot skip an event, stream
 * until told to stop, the engine fails or the lock is lost.
 *
 * <p>Everything it needs comes from the validated {@link RelayConfig}. {@link #run()} runs on the
 * main thread and returns the process exit code; {@link #close()} is called from the shutdown hook
 * and makes {@code run()} return after a graceful stop (the engine finishes its batch and commits
 * the offsets of every acknowledged record).
 */
public final class RelayProcess implements AutoCloseable {

  /** Exit codes: a supervisor restarts on anything but {@link #EXIT_REFUSED}. */
  public static final int EXIT_OK = 0;

  public static final int EXIT_ENGINE_FAILED = 1;
  public static final int EXIT_REFUSED = 2;
  public static final int EXIT_LOST_LEADERSHIP = 3;

  private static final Logger log = LoggerFactory.getLogger(RelayProcess.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long a stop waits for the sink to settle the batches it left in flight: the engine's next
   * batch settles them, which under a backlog comes within milliseconds.
   */
  private static final Duration SETTLE_ON_STOP = Duration.ofSeconds(1);

  private static final String PLUGIN = "pgoutput";

  private final RelayConfig config;
  private final EngineProperties engineProperties;
  private final PostgresSlots slots;
  private final LeaderLock lock;
  private final OffsetTopic offsetTopic;
  private final RelayStatus status;
  private final RelayMetrics metrics;
  private final Clock clock;
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile RelayEngine engine;
  private volatile KafkaBatchSink sink;

  public RelayProcess(
      RelayConfig config,
      PostgresSlots slots,
      LeaderLock lock,
      OffsetTopic offsetTopic,
      RelayStatus status,
      RelayMetrics metrics,
      Clock clock) {
    this.config = config;
    this.engineProperties = config.engine();
    this.slots = slots;
    this.lock = lock;
    this.offsetTopic = offsetTopic;
    this.status = status;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Runs until stopped or failed; returns the exit code. */
  public int run() {
    try {
      return lead();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return stopping ? EXIT_OK : EXIT_ENGINE_FAILED;
    } finally {
      finished.countDown();
    }
  }

  private int lead() throws InterruptedException {
    status.phase(RelayStatus.Phase.STANDBY);
    if (!lock.acquire(() -> !stopping)) {
      return EXIT_OK;
    }
    status.phase(RelayStatus.Phase.STARTING);
    try {
      checkSlot();
    } catch (SlotGapException e) {
      log.error(e.getMessage());
      status.failed(e.getMessage());
      return EXIT_REFUSED;
    } catch (Exception e) {
      log.error("Start-up checks of slot '{}' failed", engineProperties.slotName(), e);
      status.failed("start-up checks failed: " + e);
      return EXIT_ENGINE_FAILED;
    }
    if (stopping) {
      return EXIT_OK;
    }
    ScheduledExecutorService lagMonitor =
        Executors.newSingleThreadScheduledExecutor(
            runnable ->
                Thread.ofPlatform().name("herald-relay-slot-lag").daemon().unstarted(runnable));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            config.producer(), new ByteArraySerializer(), new ByteArraySerializer())) {
      lagMonitor.scheduleWithFixedDelay(
          new SlotLagMonitor(
              slots, engineProperties.slotName(), config.slotLag().warnBytes(), status),
          0,
          config.slotLag().checkInterval().toMillis(),
          TimeUnit.MILLISECONDS);
      sink =
          new KafkaBatchSink(
              producer,
              new OutboxRecordConverter(
                  engineProperties.heartbeatTopic(), engineProperties.heartbeatTableTopic()),
              config.sendRetry(),
              config.pipelining(),
              metrics,
              status);
      engine = new RelayEngine(engineProperties, sink, status);
      if (stopping) {
        return EXIT_OK;
      }
      endFormerReader();
      engine.start();
      expireLockWhenIdle();
      return watch(engine);
    } finally {
      lagMonitor.shutdownNow();
    }
  }

  /**
   * A former leader that froze or lost its lock session may still hold the slot through its
   * walsender until wal_sender_timeout; holding the lock, this relay ends that session instead of
   * retrying the slot until then. Without the privilege to, Debezium's slot retries wait it out.
   */
  private void endFormerReader() {
    String slotName = engineProperties.slotName();
    try {
      slots
          .endReader()
          .ifPresent(
              pid ->
                  log.warn(
                      "Slot '{}' was still read by server process {}, a former leader that has not"
                          + " let go; ended that session so that this relay can stream",
                      slotName,
                      pid));
    } catch (SQLException e) {
      log.warn(
          "Could not end the session still reading slot '{}' (SQLState {}); the engine retries the"
              + " slot until that session ends",
          slotName,
          e.getSQLState(),
          e);
    }
  }

  /** See {@link LeaderLock#expireWhenIdle()}; a broken lock session is caught by {@link #watch}. */
  private void expireLockWhenIdle() {
    try {
      if (!lock.expireWhenIdle()) {
        log.warn(
            "PostgreSQL before 14 has no idle_session_timeout: a frozen relay (paused process or"
                + " VM) keeps the leader lock until it resumes or its host vanishes");
      }
    } catch (SQLException e) {
      log.warn(
          "Could not set idle_session_timeout on the leader lock session (SQLState {})",
          e.getSQLState(),
          e);
    }
  }

  private int watch(RelayEngine running) throws InterruptedException {
    while (true) {
      try {
        running.completion().get(config.standby().pollInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (stopping) {
          return EXIT_OK;
        }
        log.error("Engine stopped although nobody asked it to; exiting so the relay is restarted");
        status.failed("engine stopped unexpectedly");
        return EXIT_ENGINE_FAILED;
      } catch (ExecutionException e) {
        log.error(
            "Engine failed; exiting so the relay is restarted (or a standby takes over)",
            e.getCause());
        status.failed("engine failed: " + e.getCause());
        return EXIT_ENGINE_FAILED;
      } catch (TimeoutException e) {
        if (!stopping && !lock.stillHeld()) {
          log.error(
              "Lost the leader lock connection; stopping the engine so that only the new leader"
                  + " streams");
          status.failed("lost the leader lock");
          closeEngine();
          return EXIT_LOST_LEADERSHIP;
        }
      }
    }
  }

  private void checkSlot() throws Exception {
    offsetTopic.ensureExists(
        engineProperties.offsetTopicPartitions(),
        engineProperties.offsetTopicReplicationFactor(),
        STARTUP_TIMEOUT);
    StoredOffsets stored =
        offsetTopic.read(
            engineProperties.engineName(),
            engineProperties.topicPrefix(),
            engineProperties.databaseName(),
            engineProperties.slotName(),
            STARTUP_TIMEOUT);
    SlotGuard.Decision decision =
        new SlotGuard(engineProperties.slotName(), PLUGIN)
            .check(
                slots.slot(), slots.registeredCreation(), slots.server(), stored, clock.instant());
    switch (decision.verdict()) {
      case ADOPT_SLOT -> {
        offsetTopic.writeIdentity(decision.identityToStore().orElseThrow(), STARTUP_TIMEOUT);
        log.info(
            "First start on slot '{}': recorded its identity {} in '{}'; streaming from the slot's"
                + " position, so rows committed before the relay first ran are delivered",
            engineProperties.slotName(),
            decision.identityToStore().get(),
            engineProperties.offsetTopic());
      }
      case RESUME ->
          log.info(
              "Slot '{}' and the stored offsets {} agree; resuming",
              engineProperties.slotName(),
              stored.engine().orElseThrow());
      case RESUME_WITHOUT_OFFSET ->
          log.warn(
              "The relay offsets for slot '{}' are gone but its identity is stored; resuming from"
                  + " the slot's confirmed position, which re-delivers events the slot had not"
                  + " confirmed (duplicates, no loss)",
              engineProperties.slotName());
    }
  }

  /** Stops gracefully: the batch in hand finishes and acknowledged offsets are committed. */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    status.phase(RelayStatus.Phase.STOPPING);
    closeEngine();
    if (!finished.await(60, TimeUnit.SECONDS)) {
      log.warn("The relay did not finish within 60 s of the stop request");
    }
    lock.close();
  }

  private void closeEngine() {
    KafkaBatchSink runningSink = sink;
    if (runningSink != null) {
      runningSink.stop();
      try {
        if (!runningSink.awaitSettled(SETTLE_ON_STOP)) {
          log.info(
              "A batch sent to Kafka was not settled within {} of the stop request; its records"
                  + " are read again from the slot on restart (duplicates, no loss)",
              SETTLE_ON_STOP);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    RelayEngine running = engine;
    if (running == null) {
      return;
    }
    try {
      running.close();
    } catch (Exception e) {
      log.error("Closing the engine failed", e);
    }
  }
}
