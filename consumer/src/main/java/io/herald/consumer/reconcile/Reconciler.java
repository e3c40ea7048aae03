package io.herald.consumer.reconcile;

import io.herald.consumer.delivery.Attempt;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryQueue;
import io.herald.consumer.delivery.DeliverySnapshot;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.Destination;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.LookupResult;
import io.herald.consumer.dispatch.DispatchSettings;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.policy.Capabilities;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.policy.DeliveryPolicy.Decision;
import io.herald.consumer.policy.DeliveryPolicy.Input;
import io.herald.consumer.policy.DeliveryPolicy.UncertainRule;
import io.herald.runtime.task.PeriodicTask;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles uncertain deliveries (guarantee 4) and recovers claims of dispatchers that vanished. Each
 * round:
 *
 * <ol>
 *   <li>expired dispatch claims become UNCERTAIN (the request may have been sent);
 *   <li>per destination: one that honours idempotency keys gets the delivery back as PENDING, to be
 *       sent again with the same key, while its first attempt is inside the destination's resend
 *       window (past it: a lookup if there is one, else an operator); one with a lookup is asked,
 *       after the grace period, whether the article exists (found: PUBLISHED with its id; not
 *       found: PENDING, a safe retry); one with neither gets NEEDS_RECONCILIATION and an operator
 *       decides. Never a blind retry.
 * </ol>
 *
 * <p>Those rules are the {@link DeliveryPolicy}'s ({@link DeliveryPolicy#uncertainRules}, applied
 * in bulk by attempt range); this class only selects, looks up and records.
 *
 * <p>Every instance may run a reconciler: rows are taken with {@code SKIP LOCKED} and lookups are
 * fenced like dispatches. Each step works in batches and stops between them when closing. Lifecycle
 * ({@link PeriodicTask}): {@link #start()} once, {@link #close()} once. Thread-safe.
 */
public final class Reconciler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  /**
   * A round also counts the finished deliveries for their gauges once this many times the last such
   * count's duration has passed since it: at most a fiftieth of the time goes to it. They are the
   * bulk of the table (kept for {@code consumer.delivery.retention}, 30 days by default), so the
   * count is a scan that grows with it (150 ms of the database's time at 80,000 rows, every 5 s
   * round before); a small table is still counted every round, a large one every few minutes. The
   * open states are counted every round through their partial index.
   */
  static final int FINISHED_COUNT_SPACING = 50;

  private final DeliveryQueue deliveries;
  private final Map<String, Destination> destinations;
  private final DispatchSettings dispatch;
  private final ReconcileSettings settings;
  private final DeliveryPolicy policy;
  private final ConsumerMetrics metrics;
  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();
  private final PeriodicTask task;
  // When the finished deliveries were last counted, and how long it took: the reconciler's thread
  // only.
  private long lastFinishedCountNanos;
  private long lastFinishedCountTook;

  public Reconciler(
      DeliveryQueue deliveries,
      Map<String, ? extends Destination> destinations,
      DispatchSettings dispatch,
      ReconcileSettings settings,
      DeliveryPolicy policy,
      ConsumerMetrics metrics) {
    this.deliveries = deliveries;
    this.destinations = Map.copyOf(destinations);
    this.dispatch = dispatch;
    this.settings = settings;
    this.policy = policy;
    this.metrics = metrics;
    this.task =
        PeriodicTask.named("herald-reconciler")
            .every(settings.interval())
            .daemon(false)
            .stopWait(dispatch.shutdownGrace().plusSeconds(5))
            .onFailure(() -> metrics.loopFailure("reconcile"))
            .build(this::runOnce);
  }

  public void start() {
    task.start();
  }

  /** Whether the reconciler thread is alive and a round started within {@code maxSilence}. */
  public boolean healthy(Duration maxSilence) {
    return task.healthy(maxSilence);
  }

  /** One reconciliation round (also called directly by tests and tools). */
  public void runOnce() throws SQLException {
    Transition expiry =
        policy.decide(DeliveryState.DISPATCHING, new Input.LeaseExpired()).transition();
    List<DeliverySnapshot> expired;
    do {
      expired = deliveries.expireLeases(settings.batchSize(), expiry);
      for (DeliverySnapshot delivery : expired) {
        metrics.transition(expiry.to());
        log.warn(
            "Claim on delivery {} ({}) expired before a result was recorded: now {}",
            delivery.deliveryId(),
            delivery.aggregateId(),
            expiry.to());
      }
    } while (!task.stopping() && expired.size() == settings.batchSize());
    for (Destination client : destinations.values()) {
      for (UncertainRule rule : policy.uncertainRules(capabilities(client.config()))) {
        if (rule.decision() instanceof Decision.LookUp) {
          lookUp(client);
        } else {
          settle(client.config(), rule, rule.decision().transition());
        }
      }
    }
    metrics.deliveriesByState(deliveries.countOpenByState(), false);
    long start = System.nanoTime();
    // The first round counts: nothing took any time yet.
    long spacing = FINISHED_COUNT_SPACING * lastFinishedCountTook;
    if (spacing <= settings.interval().toNanos() || start - lastFinishedCountNanos >= spacing) {
      metrics.deliveriesByState(deliveries.countFinishedByState(), true);
      lastFinishedCountNanos = start;
      lastFinishedCountTook = System.nanoTime() - start;
    }
    metrics.oldestUnsettledSeconds(deliveries.oldestUnsettledSeconds());
    metrics.unsettled(deliveries.unsettledByDestination());
  }

  /** What the policy needs to know about a destination. */
  private Capabilities capabilities(DestinationConfig config) {
    return Capabilities.of(config, settings.gracePeriod());
  }

  private void settle(DestinationConfig config, UncertainRule rule, Transition transition)
      throws SQLException {
    List<DeliverySnapshot> settled;
    do {
      settled =
          deliveries.settleUncertain(
              config.name(),
              rule.minAttempts(),
              rule.maxAttemptsExclusive(),
              rule.firstAttemptWithin(),
              rule.firstAttemptPast(),
              transition,
              settings.batchSize());
      for (DeliverySnapshot delivery : settled) {
        metrics.transition(transition.to());
        log.warn(
            "Uncertain delivery {} ({}) is now {}: {}",
            delivery.deliveryId(),
            delivery.aggregateId(),
            transition.to(),
            transition.reason());
      }
    } while (!task.stopping() && settled.size() == settings.batchSize());
  }

  private void lookUp(Destination client) throws SQLException {
    DestinationConfig config = client.config();
    List<ClaimedDelivery> claims =
        deliveries.claimUncertain(
            config.name(),
            dispatch.owner(),
            settings.batchSize(),
            dispatch.lease(),
            settings.gracePeriod());
    List<Future<?>> running = new ArrayList<>();
    for (ClaimedDelivery claim : claims) {
      running.add(lookups.submit(() -> resolve(client, claim)));
    }
    for (Future<?> future : running) {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        log.error("Lookup task failed; its claim will expire and be looked up again", e.getCause());
      }
    }
  }

  private void resolve(Destination client, ClaimedDelivery claim) {
    try {
      client.awaitTurn();
    } catch (InterruptedException e) {
      // Closing: nothing asked; the lookup claim expires and the delivery is looked up again.
      Thread.currentThread().interrupt();
      return;
    }
    long start = System.nanoTime();
    LookupResult result = client.lookUp(claim);
    Attempt attempt =
        new Attempt(
            Attempt.Kind.LOOKUP,
            dispatch.owner(),
            Duration.ofNanos(System.nanoTime() - start),
            result.label(),
            result.httpStatus(),
            result instanceof LookupResult.Unavailable unavailable ? unavailable.reason() : null);
    Transition transition =
        policy
            .decide(
                claim.state(),
                new Input.LookedUp(result, capabilities(client.config()), claim.attempts()))
            .transition();
    try {
      Optional<DeliverySnapshot> recorded = deliveries.complete(claim, transition, attempt);
      if (recorded.isEmpty()) {
        metrics.fenced(client.config().name());
        log.warn("Discarded lookup result {} of {}: claim taken over", result, claim);
      } else if (transition.announced()) {
        metrics.transition(transition.to());
        log.info(
            "Uncertain {} resolved by lookup: {} ({})",
            claim,
            transition.to(),
            transition.reason());
      } else {
        log.warn("Lookup for uncertain {} got no answer: {}", claim, transition.reason());
      }
    } catch (SQLException e) {
      log.error(
          "Recording lookup result {} of {} failed; it will be looked up again", result, claim, e);
      metrics.loopFailure("reconcile-record");
    }
  }

  @Override
  public void close() {
    task.close();
    lookups.shutdownNow();
  }
}
