package io.herald.consumer.dispatch;

import io.herald.consumer.breaker.BreakerSignal;
import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.delivery.Attempt;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.Completion;
import io.herald.consumer.delivery.DeliveryQueue;
import io.herald.consumer.delivery.Recorded;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.Destination;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.Outcome;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.pause.PauseGate;
import io.herald.consumer.policy.Capabilities;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.policy.DeliveryPolicy.Decision;
import io.herald.consumer.policy.DeliveryPolicy.Input;
import io.herald.consumer.trace.DeliveryTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due deliveries and publishes them. One poller thread claims work per destination, up to
 * that destination's free concurrency and the instance's pool size; each claimed delivery is
 * published on its own virtual thread, outside any database transaction, and its result recorded
 * only while the claim's fencing token is current; results of calls that end while others are being
 * recorded are recorded together, in one transaction ({@link Recorder}). What a result means (the
 * next state, the backoff, the attempt bound) is the {@link DeliveryPolicy}'s decision; this class
 * only claims, calls and records.
 *
 * <p>A claim is leased for the short heartbeat timeout and kept alive by a {@link LeaseKeeper}
 * while its call is in flight, so the claims of an instance that died expire within that timeout,
 * not within the whole lease; a call whose claim cannot be kept is cancelled before its lease ends.
 *
 * <p>Each destination is a lane of its own: a lane an operator paused ({@link PauseGate}) or whose
 * {@link CircuitBreaker} is open claims nothing, so its deliveries wait as PENDING or RETRY_WAIT
 * while the other lanes keep their full speed; a half-open breaker lets one probe through. A
 * retriable failure while the breaker is open is due again no earlier than the breaker's end.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once: stops claiming, waits up to the
 * shutdown grace for in-flight calls to be recorded (their claims still renewed), then interrupts
 * what is left (those claims expire and are reconciled as uncertain: the request may have been
 * sent). Thread-safe.
 */
public final class Dispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final DeliveryQueue deliveries;
  private final DispatchSettings settings;
  private final DeliveryPolicy policy;
  private final ConsumerMetrics metrics;
  private final LeaseKeeper leases;
  private final Recorder recorder;
  private final PauseGate pauses;
  private final DeliveryTracing tracing;
  private final List<Lane> lanes = new ArrayList<>();
  private final Semaphore globalPermits;
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final Object signal = new Object();
  private final AtomicLong lastLoopNanos = new AtomicLong(System.nanoTime());
  private volatile boolean running;
  private boolean signalled;
  private Thread poller;

  /**
   * One destination's claims. {@code due} says work may be waiting: set by a wake (new deliveries,
   * or a result of this lane that released a later delivery it held back) and left set by a claim
   * that took all it asked for; a claim that came back short clears it, and then the lane is
   * claimed again only when woken or a poll interval after that claim. A call's end alone only
   * makes the loop look again. So a call ending in one lane does not make every other lane send a
   * claim that finds nothing (at four calls in flight that was four of every five claim
   * statements).
   */
  private record Lane(
      Destination client,
      Semaphore permits,
      Capabilities capabilities,
      CircuitBreaker breaker,
      AtomicBoolean due,
      AtomicLong shortClaimNanos,
      AtomicLong heldBackSince) {
    String name() {
      return client.config().name();
    }

    /** Whether to claim now: woken, or a poll interval since its last short claim. */
    boolean wanted(long now, long pollNanos) {
      return due.get() || now - shortClaimNanos.get() >= pollNanos;
    }
  }

  /**
   * The outcome recorded for a claim the policy did not let send (its first attempt is past the
   * destination's resend window): the attempt row says "withheld", nothing was sent.
   */
  private static final AttributeKey<String> STATE = AttributeKey.stringKey("herald.delivery.state");

  private static final Outcome WITHHELD = new Outcome.Retry("not sent", null);

  /**
   * A lane with calls in flight claims once this fraction of its concurrency is free: small enough
   * that its calls stay busy (three quarters still in flight while the claim runs), large enough
   * that one claim statement takes many rows at full speed.
   */
  private static final int CLAIM_BATCH_DIVISOR = 4;

  /**
   * The longest a free permit waits for a batch to fill: with slow calls a quarter of the lane may
   * take long to free, and a due delivery should not wait for it, nor the permit stay unused.
   */
  static final Duration CLAIM_LINGER = Duration.ofMillis(10);

  private static final long NOT_HELD_BACK = Long.MIN_VALUE;

  /** A dispatcher whose policy knows each destination by {@link Capabilities#of}. */
  public Dispatcher(
      DeliveryQueue deliveries,
      Map<String, ? extends Destination> destinations,
      DispatchSettings settings,
      DeliveryPolicy policy,
      ConsumerMetrics metrics) {
    this(
        deliveries,
        destinations,
        settings,
        policy,
        config -> Capabilities.of(config, Duration.ZERO),
        metrics);
  }

  /** A dispatcher without operator pauses, its breakers on the system clock. */
  public Dispatcher(
      DeliveryQueue deliveries,
      Map<String, ? extends Destination> destinations,
      DispatchSettings settings,
      DeliveryPolicy policy,
      Function<DestinationConfig, Capabilities> capabilities,
      ConsumerMetrics metrics) {
    this(
        deliveries,
        destinations,
        settings,
        policy,
        capabilities,
        PauseGate.NONE,
        Clock.systemUTC(),
        metrics,
        DeliveryTracing.NOOP);
  }

  /**
   * @param settings validated by the configuration, the lease included: it outlasts every
   *     destination's connect and read timeouts together
   * @param capabilities what the policy knows of a destination (its key, window and lookup)
   * @param pauses the operators' pauses, refreshed by the poll loop; a paused destination's
   *     deliveries are not claimed
   * @param clock the time of each destination's {@link CircuitBreaker} (its open time)
   * @param tracing each claimed delivery is handled in its processing span (the destination call's
   *     client span its child); {@link DeliveryTracing#NOOP} for none
   */
  public Dispatcher(
      DeliveryQueue deliveries,
      Map<String, ? extends Destination> destinations,
      DispatchSettings settings,
      DeliveryPolicy policy,
      Function<DestinationConfig, Capabilities> capabilities,
      PauseGate pauses,
      Clock clock,
      ConsumerMetrics metrics,
      DeliveryTracing tracing) {
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    this.pauses = Objects.requireNonNull(pauses, "pauses");
    this.globalPermits = new Semaphore(settings.poolSize());
    this.deliveries = deliveries;
    this.settings = settings;
    this.policy = policy;
    this.metrics = metrics;
    this.leases =
        new LeaseKeeper(
            deliveries,
            settings.owner(),
            settings.heartbeatTimeout(),
            settings.lease(),
            System::nanoTime,
            metrics);
    this.recorder = new Recorder(deliveries, settings.recordBatchSize());
    for (Destination client : destinations.values()) {
      CircuitBreaker breaker = new CircuitBreaker(client.config().breaker(), clock);
      lanes.add(
          new Lane(
              client,
              new Semaphore(client.config().concurrency()),
              capabilities.apply(client.config()),
              breaker,
              new AtomicBoolean(true),
              new AtomicLong(System.nanoTime()),
              new AtomicLong(NOT_HELD_BACK)));
      String name = client.config().name();
      metrics.lane(name, breaker, () -> pauses.paused(name));
    }
  }

  /** Each destination's circuit breaker (this instance's), by name. */
  public Map<String, CircuitBreaker> breakers() {
    Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();
    lanes.forEach(lane -> breakers.put(lane.name(), lane.breaker()));
    return breakers;
  }

  public synchronized void start() {
    if (poller != null) {
      throw new IllegalStateException("Dispatcher already started");
    }
    running = true;
    leases.start();
    poller = Thread.ofPlatform().name("herald-dispatcher").daemon(false).start(this::pollLoop);
    log.info(
        "Dispatcher {} started for destinations {} (claims leased {} at a time, renewed while in"
            + " flight, for at most {}; max attempts {})",
        settings.owner(),
        lanes.stream().map(Lane::name).toList(),
        leases.horizon(),
        settings.lease(),
        policy.maxAttempts());
  }

  /**
   * Tells the dispatcher that new work may be due for every destination (a cheap hint; polling
   * covers a lost one).
   */
  public void wake() {
    lanes.forEach(lane -> lane.due().set(true));
    signal();
  }

  /** Work may be due for {@code lane} alone. */
  private void wake(Lane lane) {
    lane.due().set(true);
    signal();
  }

  private void signal() {
    synchronized (signal) {
      signalled = true;
      signal.notifyAll();
    }
  }

  /** Whether the poll loop ran recently (health). */
  public boolean healthy(Duration maxSilence) {
    return running
        && poller != null
        && poller.isAlive()
        && System.nanoTime() - lastLoopNanos.get() < maxSilence.toNanos()
        && leases.healthy(maxSilence);
  }

  private void pollLoop() {
    long pollNanos = settings.pollInterval().toNanos();
    while (running) {
      long now = System.nanoTime();
      lastLoopNanos.set(now);
      int claimed = 0;
      boolean failed = false;
      pauses.refresh();
      for (Lane lane : lanes) {
        if (!running) {
          break;
        }
        // A paused or open lane claims nothing: its deliveries wait as they are, while the other
        // lanes and intake carry on.
        if (pauses.paused(lane.name()) || !lane.wanted(now, pollNanos)) {
          // Nothing held back for a lane that cannot claim: its linger would wake the loop.
          lane.heldBackSince().set(NOT_HELD_BACK);
          continue;
        }
        int lanePermits = lane.permits().availablePermits();
        int free = lane.breaker().admit(Math.min(lanePermits, globalPermits.availablePermits()));
        if (free == 0) {
          lane.heldBackSince().set(NOT_HELD_BACK);
          continue;
        }
        // While calls of this lane are in flight, claim only once a batch's worth of permits is
        // free (each call's end wakes this loop): a claim per ended call made the claim
        // statement, one at a time on this thread, the limit of the whole dispatch (B5). With
        // nothing in flight, whatever is free is claimed at once, so a quiet lane waits for none.
        // A permit never waits longer than CLAIM_LINGER for the batch to fill.
        boolean inFlight = lanePermits < lane.client().config().concurrency();
        if (inFlight && free < claimBatch(lane)) {
          long since = lane.heldBackSince().get();
          if (since == NOT_HELD_BACK) {
            lane.heldBackSince().set(now);
            continue;
          }
          if (now - since < CLAIM_LINGER.toNanos()) {
            continue;
          }
        }
        lane.heldBackSince().set(NOT_HELD_BACK);
        List<ClaimedDelivery> claims;
        // Cleared before the statement, so a wake that comes while it runs is kept.
        lane.due().set(false);
        // Before the statement: the local deadline of a claim must not pass after its lease_until.
        long claimedNanos = System.nanoTime();
        try {
          claims = deliveries.claimDue(lane.name(), settings.owner(), free, leases.horizon());
          lane.breaker().claimed(claims.size());
          if (claims.size() < free) {
            lane.shortClaimNanos().set(claimedNanos);
          } else {
            lane.due().set(true);
          }
        } catch (SQLException | RuntimeException e) {
          lane.due().set(true);
          log.error(
              "Claiming due deliveries of {} failed; retrying after {}",
              lane.name(),
              settings.pollInterval(),
              e);
          metrics.loopFailure("dispatch-claim");
          failed = true;
          break;
        }
        for (ClaimedDelivery claim : claims) {
          globalPermits.acquireUninterruptibly();
          lane.permits().acquireUninterruptibly();
          workers.execute(() -> dispatchAndRelease(lane, claim, claimedNanos));
        }
        claimed += claims.size();
      }
      if (claimed == 0 || failed) {
        awaitSignal(failed ? settings.pollInterval() : untilNextPoll(pollNanos));
      }
    }
  }

  /**
   * The fewest deliveries a lane claims while calls of its own are in flight, unless a free permit
   * has waited {@link #CLAIM_LINGER}: a quarter of its concurrency, at least one (a lane of 4 or
   * fewer claims as soon as a permit is free).
   */
  static int claimBatch(int concurrency) {
    return Math.max(1, concurrency / CLAIM_BATCH_DIVISOR);
  }

  private static int claimBatch(Lane lane) {
    return claimBatch(lane.client().config().concurrency());
  }

  /**
   * Until the next lane's poll interval since its last short claim ends, at most one interval. A
   * lane already past it was looked at in this round (and had no permit free, or was paused), so it
   * waits for a wake or the next interval rather than making the loop spin.
   */
  private Duration untilNextPoll(long pollNanos) {
    long now = System.nanoTime();
    long wait = pollNanos;
    for (Lane lane : lanes) {
      long left = lane.shortClaimNanos().get() + pollNanos - now;
      if (left > 0) {
        wait = Math.min(wait, left);
      }
      // A lane holding free permits back for a batch claims them when the linger ends.
      long since = lane.heldBackSince().get();
      if (since != NOT_HELD_BACK) {
        wait = Math.min(wait, Math.max(0, since + CLAIM_LINGER.toNanos() - now));
      }
    }
    return Duration.ofNanos(wait);
  }

  private void dispatchAndRelease(Lane lane, ClaimedDelivery claim, long claimedNanos) {
    LeaseKeeper.Held held = leases.hold(claim, claimedNanos, Thread.currentThread());
    Span processing = tracing.processing(claim, lane.name());
    CallSlot slot = new CallSlot(lane);
    boolean releasedLater = false;
    try (Scope ignored = processing.makeCurrent()) {
      releasedLater = dispatch(lane, claim, held, slot);
    } catch (RuntimeException e) {
      processing.recordException(e);
      processing.setStatus(StatusCode.ERROR, "dispatch failed unexpectedly");
      log.error(
          "Dispatching {} failed unexpectedly; its claim will expire and be reconciled", claim, e);
      // Were it a half-open breaker's probe, another may go: this one says nothing of the health.
      lane.breaker().released();
    } finally {
      processing.end();
      held.endCall();
      slot.free();
      leases.release(held);
      globalPermits.release();
      // The pool's place is free too: a loop that found every worker busy recording looks again.
      // A result that released a later delivery this one held back is work for the lane now.
      if (releasedLater) {
        wake(lane);
      } else {
        signal();
      }
    }
  }

  /**
   * A call's place in its lane's concurrency, freed as soon as the call is over, before its result
   * is recorded: the lane's {@code concurrency} bounds the calls at the destination, and recording
   * (a database transaction, in a group) need not keep the next call waiting. Before, each call of
   * a lane waited for the previous result's recording as well as its claim (B6, 4 instances of 4
   * calls in flight against a 50 ms destination: 244 deliveries/s before, 268 after). The worker
   * keeps its place in the pool ({@code globalPermits}) until the result is recorded, so the
   * results waiting to be recorded stay bounded by the pool.
   */
  private final class CallSlot {
    private final Lane lane;
    private boolean freed;

    CallSlot(Lane lane) {
      this.lane = lane;
    }

    /** Frees the lane's permit once (later calls do nothing) and lets the loop look again. */
    void free() {
      if (!freed) {
        freed = true;
        lane.permits().release();
        // The freed permit is for work the lane knows of: what its last claim left (due stays set
        // after a full claim). After a short claim, a claim now would find nothing: at 0 ms calls
        // that was three claims in four, so the loop only looks.
        signal();
      }
    }
  }

  /**
   * Sends {@code claim} (unless the policy withholds it) and records the result.
   *
   * @return whether the result released a later delivery of its article and destination
   */
  private boolean dispatch(Lane lane, ClaimedDelivery claim, LeaseKeeper.Held held, CallSlot slot) {
    boolean turn;
    try {
      lane.client().awaitTurn();
      turn = true;
    } catch (InterruptedException e) {
      // Cancelled or closing before anything was sent: recorded below as a definite "not sent".
      turn = false;
    }
    // Decided after the rate limit's wait, just before the call: the window may end meanwhile.
    if (!turn) {
      lane.breaker().released();
    }
    if (turn && policy.decide(claim.state(), claimed(lane, claim)) instanceof Decision.Move no) {
      held.endCall();
      lane.breaker().released();
      slot.free();
      boolean releasedLater = record(lane, claim, no.transition(), WITHHELD, Duration.ZERO, null);
      DeliveryTracing.ended(Span.current(), "withheld", null, false);
      return releasedLater;
    }
    // Of the body about to be sent; null when nothing will be (interrupted in the rate limit).
    String requestHash = turn ? lane.client().requestHash(claim) : null;
    long start = System.nanoTime();
    Outcome outcome =
        turn
            ? lane.client().publish(claim)
            : new Outcome.Retry("not sent: interrupted while waiting for the rate limit", null);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // A cancelled call ends with the client's classification of the interrupt (uncertain: the
    // request may have been sent); the interrupt is cleared so the result is still recorded, and
    // the fence decides whether it counts.
    held.endCall();
    metrics.dispatched(lane.name(), outcome.label(), took);
    if (turn && lane.breaker().record(BreakerSignal.of(outcome))) {
      log.warn(
          "Circuit breaker of {} opened after {} ({}): its deliveries wait until {}, other"
              + " destinations carry on",
          lane.name(),
          outcome,
          claim,
          lane.breaker().snapshot().reopensAt());
    }
    // After the breaker has counted the outcome, so a call that opens it is not followed by one
    // more.
    slot.free();
    Transition transition =
        policy
            .decide(
                claim.state(),
                new Input.Dispatched(
                    outcome, claim.attempts(), claim.wasEverUncertain(), lane.breaker().heldFor()))
            .transition();
    boolean releasedLater = record(lane, claim, transition, outcome, took, requestHash);
    // The processing span (current on this worker): the attempt's outcome and the state it led to.
    Span.current().setAttribute(STATE, transition.to().name());
    DeliveryTracing.ended(
        Span.current(),
        outcome.label(),
        outcome.httpStatus(),
        outcome instanceof Outcome.Published);
    return releasedLater;
  }

  /** What the policy needs to decide whether a claimed delivery may be sent. */
  private static Input.Claimed claimed(Lane lane, ClaimedDelivery claim) {
    return new Input.Claimed(
        lane.capabilities(), claim.wasEverUncertain(), claim.sinceFirstAttempt());
  }

  /**
   * Records the result (in a group with others), logs and counts it.
   *
   * @return whether it released a later delivery of its article and destination; false when it was
   *     not recorded (fenced, or the recording failed: nothing changed)
   */
  private boolean record(
      Lane lane,
      ClaimedDelivery claim,
      Transition transition,
      Outcome outcome,
      Duration took,
      String requestHash) {
    Optional<Recorded> recorded;
    try {
      // In a group with the results of other calls that ended meanwhile (one transaction).
      recorded =
          recorder.record(
              new Completion(
                  claim,
                  transition,
                  new Attempt(
                      Attempt.Kind.PUBLISH,
                      settings.owner(),
                      took,
                      outcome == WITHHELD ? "withheld" : outcome.label(),
                      outcome.httpStatus(),
                      outcome == WITHHELD ? transition.reason() : outcome.reason(),
                      requestHash)));
    } catch (SQLException | RuntimeException e) {
      // The outcome is lost with this process's memory; the lease expires and the reconciler
      // treats the delivery as uncertain, which is exactly what it is for everybody else.
      log.error(
          "Recording {} -> {} ({}) failed; the claim will expire and be reconciled",
          claim,
          transition.to(),
          outcome,
          e);
      metrics.loopFailure("dispatch-record");
      return false;
    }
    if (recorded.isEmpty()) {
      metrics.fenced(lane.name());
      log.warn(
          "Discarded the late result {} of {}: its claim was taken over (fencing token moved on)",
          outcome,
          claim);
      return false;
    }
    metrics.transition(transition.to());
    logTransition(claim, transition, outcome);
    return recorded.get().releasedLater();
  }

  private static void logTransition(ClaimedDelivery claim, Transition transition, Outcome outcome) {
    switch (transition.to()) {
      // DEBUG: at a thousand a second an INFO line each was 6 % of the consumer's CPU; every
      // publication is on the status topic and in herald trace, and the metrics count them.
      case PUBLISHED -> log.debug("Published {} as {}", claim, transition.remoteId());
      case RETRY_WAIT ->
          log.warn("Retrying {} in {}: {}", claim, transition.retryIn(), transition.reason());
      case UNCERTAIN -> log.warn("Outcome of {} is uncertain: {}", claim, transition.reason());
      default ->
          log.error("{} is {}: {} ({})", claim, transition.to(), transition.reason(), outcome);
    }
  }

  private void awaitSignal(Duration timeout) {
    synchronized (signal) {
      if (!signalled && running) {
        try {
          signal.wait(Math.max(1, timeout.toMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          running = false;
        }
      }
      signalled = false;
    }
  }

  @Override
  public void close() {
    Thread thread;
    synchronized (this) {
      running = false;
      thread = poller;
    }
    wake();
    if (thread != null) {
      try {
        thread.join(settings.pollInterval().multipliedBy(10).plusSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(settings.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn(
            "In-flight dispatches did not finish within {}; their claims will expire and be"
                + " reconciled as uncertain",
            settings.shutdownGrace());
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      workers.shutdownNow();
    }
    // Only now: the calls recorded during the grace needed their claims renewed.
    leases.close();
    for (Lane lane : lanes) {
      lane.client().close();
    }
    log.info("Dispatcher {} stopped", settings.owner());
  }
}
