package io.herald.relay;

import io.herald.relay.config.RelayConfig;
import io.herald.relay.engine.EngineProperties;
import io.herald.relay.engine.RelayEngine;
import io.herald.relay.ha.LeaderLock;
import io.herald.relay.ha.LeaderWatch;
import io.herald.relay.health.RelayMetrics;
import io.herald.relay.health.RelayStatus;
import io.herald.relay.offsets.OffsetTopic;
import io.herald.relay.offsets.SlotIdentity;
import io.herald.relay.offsets.StoredOffsets;
import io.herald.relay.sink.KafkaBatchSink;
import io.herald.relay.sink.OutboxRecordConverter;
import io.herald.relay.sink.RelayPublishException;
import io.herald.relay.slot.FailoverSlot;
import io.herald.relay.slot.PostgresSlots;
import io.herald.relay.slot.SlotGapException;
import io.herald.relay.slot.SlotGuard;
import io.herald.relay.slot.SlotLagMonitor;
import io.herald.runtime.db.SqlFailure;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
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
 * until told to stop or the engine fails. A lost lock session (the database restarted, or ended the
 * session of a frozen relay) ends the term, not the process: the engine is stopped, the lock
 * released, and the relay stands by and contends for the lock again ({@link LeaderWatch}).
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

  /**
   * Lost the leader lock and the engine would not stop: only the end of the process fences it. A
   * relay that loses its lock otherwise stands by again in the same process.
   */
  public static final int EXIT_LOST_LEADERSHIP = 3;

  private static final Logger log = LoggerFactory.getLogger(RelayProcess.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long a leader that lost its lock waits for its engine to stop before it exits instead
   * (Debezium refuses to stop while its task restarts after the lost database connection).
   */
  private static final Duration ENGINE_STOP_TIMEOUT = Duration.ofSeconds(60);

  /** How long a lost leader waits for a slot lag check in progress to end. */
  private static final Duration LAG_CHECK_STOP = Duration.ofSeconds(5);

  /**
   * How long a stop waits for the sink to settle the batches it left in flight: the engine's next
   * batch settles them, which under a backlog comes within milliseconds.
   */
  private static final Duration SETTLE_ON_STOP = Duration.ofSeconds(1);

  private static final String PLUGIN = "pgoutput";

  private final RelayConfig config;
  private final EngineProperties engineProperties;
  private final PostgresSlots slots;
  private final Optional<FailoverSlot> failover;
  private final LeaderLock lock;
  private final OffsetTopic offsetTopic;
  private final RelayStatus status;
  private final RelayMetrics metrics;
  private final Clock clock;
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile RelayEngine engine;
  private volatile KafkaBatchSink sink;

  /**
   * @param failover the slot's failover handling when {@code relay.slot.failover} is on
   */
  public RelayProcess(
      RelayConfig config,
      PostgresSlots slots,
      Optional<FailoverSlot> failover,
      LeaderLock lock,
      OffsetTopic offsetTopic,
      RelayStatus status,
      RelayMetrics metrics,
      Clock clock) {
    this.config = config;
    this.engineProperties = config.engine();
    this.slots = slots;
    this.failover = failover;
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

  /**
   * Stands by for the lock, leads, and stands by again each time the lock session is lost, until a
   * stop, a failure or a refusal ends the process.
   */
  private int lead() throws InterruptedException {
    status.phase(RelayStatus.Phase.STANDBY);
    while (true) {
      if (!lock.acquire(() -> !stopping)) {
        return EXIT_OK;
      }
      OptionalInt exit = leadOnce();
      if (exit.isPresent()) {
        return exit.getAsInt();
      }
    }
  }

  /**
   * One term as leader: checks that streaming cannot skip an event, streams until the term ends.
   *
   * @return the exit code, or empty when the lock session was lost and the engine has stopped: the
   *     relay stands by again
   */
  private OptionalInt leadOnce() throws InterruptedException {
    status.phase(RelayStatus.Phase.STARTING);
    try {
      checkSlot();
    } catch (SlotGapException e) {
      log.error(e.getMessage());
      status.failed(e.getMessage());
      return OptionalInt.of(EXIT_REFUSED);
    } catch (Exception e) {
      if (next(LeaderWatch.Engine.FAILED) == LeaderWatch.Next.BACK_TO_STANDBY) {
        log.warn(
            "Start-up checks of slot '{}' failed and the leader lock connection is gone (the"
                + " database went away); standing by to take the lock again",
            engineProperties.slotName(),
            e);
        return backToStandby(null, "lost the leader lock during the start-up checks: " + e);
      }
      if (e instanceof SQLException sql && SqlFailure.classify(sql) == SqlFailure.UNAVAILABLE) {
        // The lock's session survived but the pool's connections did not (a reset or a freeze of
        // the database's link): the checks can pass once it is back, so this is no reason to end
        // the process. The lock is given up and taken again; its acquire and the pool's
        // connection timeout pace the tries.
        log.warn(
            "Start-up checks of slot '{}' could not reach the database ({}); giving the leader"
                + " lock up and standing by to take it again",
            engineProperties.slotName(),
            e.toString());
        return backToStandby(null, "start-up checks could not reach the database: " + e);
      }
      log.error("Start-up checks of slot '{}' failed", engineProperties.slotName(), e);
      status.failed("start-up checks failed: " + e);
      return OptionalInt.of(EXIT_ENGINE_FAILED);
    }
    if (stopping) {
      return OptionalInt.of(EXIT_OK);
    }
    ScheduledExecutorService lagMonitor =
        Executors.newSingleThreadScheduledExecutor(
            runnable ->
                Thread.ofPlatform().name("herald-relay-slot-lag").daemon().unstarted(runnable));
    try (KafkaBatchSink termSink =
        new KafkaBatchSink(
            () ->
                new KafkaProducer<>(
                    config.producer(), new ByteArraySerializer(), new ByteArraySerializer()),
            new OutboxRecordConverter(
                engineProperties.heartbeatTopic(), engineProperties.heartbeatTableTopic()),
            config.sendRetry(),
            config.pipelining(),
            metrics,
            status)) {
      sink = termSink;
      lagMonitor.scheduleWithFixedDelay(
          new SlotLagMonitor(
              slots, engineProperties.slotName(), config.slotLag().warnBytes(), status),
          0,
          config.slotLag().checkInterval().toMillis(),
          TimeUnit.MILLISECONDS);
      RelayEngine running =
          new RelayEngine(engineProperties, termSink, status, metrics::slotConfirmed);
      engine = running;
      if (stopping) {
        return OptionalInt.of(EXIT_OK);
      }
      try {
        // Before the engine streams: a former leader woken later can no longer commit anything.
        termSink.fence();
      } catch (RelayPublishException e) {
        if (stopping) {
          return OptionalInt.of(EXIT_OK);
        }
        if (next(LeaderWatch.Engine.FAILED) == LeaderWatch.Next.BACK_TO_STANDBY) {
          return backToStandby(null, "lost the leader lock while fencing former producers: " + e);
        }
        log.error(
            "Could not fence the former producers of slot '{}'", engineProperties.slotName(), e);
        status.failed("fencing the former producers failed: " + e.getMessage());
        return OptionalInt.of(EXIT_ENGINE_FAILED);
      }
      endFormerReader();
      if (failover.isPresent()) {
        OptionalInt refused;
        try {
          refused = prepareFailover(failover.get());
        } catch (SQLException e) {
          if (next(LeaderWatch.Engine.FAILED) == LeaderWatch.Next.BACK_TO_STANDBY) {
            return backToStandby(null, "lost the leader lock while preparing the slot: " + e);
          }
          log.error("Could not make slot '{}' a failover slot", engineProperties.slotName(), e);
          status.failed("setting up the failover slot failed: " + e.getMessage());
          return OptionalInt.of(EXIT_ENGINE_FAILED);
        }
        if (refused.isPresent()) {
          return refused;
        }
        lagMonitor.scheduleWithFixedDelay(
            () -> checkFailover(failover.get(), false),
            config.slotLag().checkInterval().toMillis(),
            config.slotLag().checkInterval().toMillis(),
            TimeUnit.MILLISECONDS);
      }
      running.start();
      expireLockWhenIdle();
      OptionalInt exit = watch(running);
      if (exit.isEmpty()) {
        // A lag check still running would report a standby's lag; bounded by the pool's timeout.
        lagMonitor.shutdownNow();
        if (!lagMonitor.awaitTermination(LAG_CHECK_STOP.toMillis(), TimeUnit.MILLISECONDS)) {
          log.info("A slot lag check was still running {} after losing the lock", LAG_CHECK_STOP);
        }
        // Within the sink's scope: it settles and the engine stops before its producer closes.
        return backToStandby(running, "lost the leader lock");
      }
      return exit;
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

  /**
   * Before the engine streams (the slot is free): refuses a server without failover slots, sets the
   * slot's flag if unset, and reports the readiness. A database error here is a failed term like
   * any other start-up check.
   */
  private OptionalInt prepareFailover(FailoverSlot slot) throws SQLException {
    FailoverSlot.Readiness readiness = slot.read();
    if (readiness.serverVersion() < FailoverSlot.MINIMUM_SERVER_VERSION) {
      String reason =
          "relay.slot.failover=true needs PostgreSQL 17 or later (failover slots); the server is"
              + " version "
              + readiness.serverVersion();
      log.error(reason);
      status.failed(reason);
      return OptionalInt.of(EXIT_REFUSED);
    }
    if (!readiness.failover()) {
      slot.enable();
      log.info(
          "Set failover = true on slot '{}': a standby with sync_replication_slots = on keeps a"
              + " copy of it",
          engineProperties.slotName());
    }
    checkFailover(slot, true);
    return OptionalInt.empty();
  }

  /**
   * Reads the readiness into the status; logs it at start and whenever it turns bad or good (an
   * error while not ready, since a failover then risks events for commits the new primary lacks).
   */
  private void checkFailover(FailoverSlot slot, boolean atStart) {
    try {
      FailoverSlot.Readiness readiness = slot.read();
      long before = status.failoverReady();
      status.failover(readiness.ready(), readiness.describe());
      boolean changed = before != (readiness.ready() ? 1 : 0);
      if (readiness.ready() && (atStart || changed)) {
        log.info("Slot '{}': {}", engineProperties.slotName(), readiness.describe());
      } else if (!readiness.ready() && (atStart || changed)) {
        log.error(
            "Slot '{}' is not ready for a PostgreSQL failover: {}. Set synchronized_standby_slots"
                + " on the primary to the standby's physical slot (docs/design.md, \"Failover\")",
            engineProperties.slotName(),
            readiness.describe());
      }
    } catch (SQLException e) {
      log.warn(
          "Could not read the failover readiness of slot '{}' (SQLState {})",
          engineProperties.slotName(),
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

  /**
   * Watches the streaming engine and the lock session every poll interval.
   *
   * @return the exit code, or empty when the lock session is gone (the engine may still run)
   */
  private OptionalInt watch(RelayEngine running) throws InterruptedException {
    while (true) {
      LeaderWatch.Engine state;
      Throwable failure = null;
      try {
        running.completion().get(config.standby().pollInterval().toMillis(), TimeUnit.MILLISECONDS);
        state = LeaderWatch.Engine.STOPPED;
      } catch (ExecutionException e) {
        state = LeaderWatch.Engine.FAILED;
        failure = e.getCause();
      } catch (TimeoutException e) {
        state = LeaderWatch.Engine.RUNNING;
      }
      switch (next(state)) {
        case KEEP_WATCHING -> {}
        case EXIT_STOPPED -> {
          return OptionalInt.of(EXIT_OK);
        }
        case EXIT_ENGINE_FAILED -> {
          if (failure != null) {
            log.error(
                "Engine failed; exiting so the relay is restarted (or a standby takes over)",
                failure);
            status.failed("engine failed: " + failure);
          } else {
            log.error(
                "Engine stopped although nobody asked it to; exiting so the relay is restarted");
            status.failed("engine stopped unexpectedly");
          }
          return OptionalInt.of(EXIT_ENGINE_FAILED);
        }
        case BACK_TO_STANDBY -> {
          if (failure != null) {
            log.warn(
                "Lost the leader lock connection; the engine failed meanwhile, most likely for the"
                    + " same reason (the database went away)",
                failure);
          } else {
            log.warn(
                "Lost the leader lock connection; stopping the engine so that only the new leader"
                    + " streams, then standing by to take the lock again");
          }
          return OptionalInt.empty();
        }
      }
    }
  }

  /** {@link LeaderWatch#next}, checking the lock session only when the answer depends on it. */
  private LeaderWatch.Next next(LeaderWatch.Engine state) {
    boolean stopRequested = stopping;
    return LeaderWatch.next(state, stopRequested, stopRequested || lock.stillHeld());
  }

  /**
   * Ends a term whose lock session is gone: stops the engine for good (so that only one reader
   * streams, and never two engines in this process), gives the lock up and reports standby. A new
   * term starts only after this, and ends any walsender still reading the slot before its engine
   * starts ({@link #endFormerReader}).
   *
   * @param running the term's engine, null when none was started
   * @return empty to stand by again, or {@link #EXIT_LOST_LEADERSHIP} when the engine did not stop
   *     within {@link #ENGINE_STOP_TIMEOUT}: then only the end of this process fences it
   */
  private OptionalInt backToStandby(RelayEngine running, String reason)
      throws InterruptedException {
    if (running != null) {
      settleSink();
      if (!running.stop(ENGINE_STOP_TIMEOUT)) {
        log.error(
            "The engine did not stop within {} of losing the leader lock; exiting so that it"
                + " cannot stream beside the new leader",
            ENGINE_STOP_TIMEOUT);
        status.failed(reason + "; the engine did not stop");
        return OptionalInt.of(EXIT_LOST_LEADERSHIP);
      }
    }
    engine = null;
    sink = null;
    lock.release();
    metrics.leadershipLost();
    if (stopping) {
      return OptionalInt.of(EXIT_OK);
    }
    status.backToStandby(reason + "; standing by to take it again");
    log.info(
        "Engine stopped after losing the leader lock; this relay stands by and contends for the"
            + " lock again");
    return OptionalInt.empty();
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
      case RESUME -> {
        storeRetimed(decision);
        log.info(
            "Slot '{}' and the stored offsets {} agree; resuming",
            engineProperties.slotName(),
            stored.engine().orElseThrow());
      }
      case RESUME_WITHOUT_OFFSET -> {
        storeRetimed(decision);
        log.warn(
            "The relay offsets for slot '{}' are gone but its identity is stored; resuming from"
                + " the slot's confirmed position, which re-delivers events the slot had not"
                + " confirmed (duplicates, no loss)",
            engineProperties.slotName());
      }
      case RESUME_FROM_SLOT_AFTER_PROMOTION -> {
        SlotIdentity retimed = decision.identityToStore().orElseThrow();
        offsetTopic.resetToSlot(
            engineProperties.engineName(),
            engineProperties.topicPrefix(),
            retimed,
            STARTUP_TIMEOUT);
        log.warn(
            "PostgreSQL was promoted since this relay last streamed (timeline {} -> {}): resuming"
                + " from slot '{}' at its confirmed position instead of the stored offsets {}, so"
                + " no commit of the new primary is skipped; events between the two are published"
                + " again (the inbox absorbs them). Without synchronized_standby_slots on the"
                + " former primary, events it published past what its standby had received are in"
                + " Kafka for commits this server lacks.",
            stored.identity().flatMap(i -> boxed(i.timeline())).orElseThrow(),
            retimed.timeline().getAsLong(),
            engineProperties.slotName(),
            stored.engine().orElseThrow());
      }
    }
  }

  /** Stores the identity on the server's timeline when the stored one did not name it. */
  private void storeRetimed(SlotGuard.Decision decision) throws Exception {
    if (decision.identityToStore().isPresent()) {
      offsetTopic.writeIdentity(decision.identityToStore().get(), STARTUP_TIMEOUT);
    }
  }

  private static Optional<Long> boxed(OptionalLong value) {
    return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
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
    settleSink();
    RelayEngine running = engine;
    if (running == null) {
      return;
    }
    try {
      if (!running.stop(ENGINE_STOP_TIMEOUT)) {
        log.error("The engine did not stop within {} of the stop request", ENGINE_STOP_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the sink's pipelining and waits briefly for its batches in flight to settle. */
  private void settleSink() {
    KafkaBatchSink runningSink = sink;
    if (runningSink == null) {
      return;
    }
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
}
