package io.herald.consumer.reconcile;

import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.DeliverySnapshot;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.DestinationClient;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.LookupResult;
import io.herald.consumer.dispatch.DispatchSettings;
import io.herald.consumer.metrics.ConsumerMetrics;
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
 *       sent again with the same key; one with a lookup is asked, after the grace period, whether
 *       the article exists (found: PUBLISHED with its id; not found: PENDING, a safe retry); one
 *       with neither gets NEEDS_RECONCILIATION and an operator decides. Never a blind retry.
 * </ol>
 *
 * <p>Every instance may run a reconciler: rows are taken with {@code SKIP LOCKED} and lookups are
 * fenced like dispatches. Each step works in batches and stops between them when closing. Lifecycle
 * ({@link PeriodicTask}): {@link #start()} once, {@link #close()} once. Thread-safe.
 */
public final class Reconciler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final Deliveries deliveries;
  private final Map<String, DestinationClient> destinations;
  private final DispatchSettings dispatch;
  private final ReconcileSettings settings;
  private final ConsumerMetrics metrics;
  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();
  private final PeriodicTask task;

  public Reconciler(
      Deliveries deliveries,
      Map<String, DestinationClient> destinations,
      DispatchSettings dispatch,
      ReconcileSettings settings,
      ConsumerMetrics metrics) {
    this.deliveries = deliveries;
    this.destinations = Map.copyOf(destinations);
    this.dispatch = dispatch;
    this.settings = settings;
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
    List<DeliverySnapshot> expired;
    do {
      expired = deliveries.expireLeases(settings.batchSize());
      for (DeliverySnapshot delivery : expired) {
        metrics.transition(DeliveryState.UNCERTAIN);
        log.warn(
            "Claim on delivery {} ({}) expired before a result was recorded: now UNCERTAIN",
            delivery.deliveryId(),
            delivery.aggregateId());
      }
    } while (!task.stopping() && expired.size() == settings.batchSize());
    for (DestinationClient client : destinations.values()) {
      DestinationConfig config = client.config();
      if (config.honoursIdempotencyKey()) {
        settle(
            config,
            dispatch.maxAttempts(),
            Integer.MAX_VALUE,
            DeliveryState.NEEDS_RECONCILIATION,
            "uncertain after "
                + dispatch.maxAttempts()
                + " attempts at a destination that honours idempotency keys: an operator decides");
        settle(
            config,
            0,
            dispatch.maxAttempts(),
            DeliveryState.PENDING,
            "uncertain outcome; the destination honours idempotency keys: retry with the same key");
      } else if (config.supportsLookup()) {
        lookUp(client);
      } else {
        settle(
            config,
            0,
            Integer.MAX_VALUE,
            DeliveryState.NEEDS_RECONCILIATION,
            "uncertain outcome; the destination offers neither idempotency keys nor lookup: an"
                + " operator decides");
      }
    }
    metrics.deliveriesByState(deliveries.countByState());
  }

  private void settle(
      DestinationConfig config,
      int minAttempts,
      int maxAttemptsExclusive,
      DeliveryState target,
      String reason)
      throws SQLException {
    List<DeliverySnapshot> settled;
    do {
      settled =
          deliveries.settleUncertain(
              config.name(),
              minAttempts,
              maxAttemptsExclusive,
              target,
              reason,
              settings.batchSize());
      for (DeliverySnapshot delivery : settled) {
        metrics.transition(target);
        log.warn(
            "Uncertain delivery {} ({}) is now {}: {}",
            delivery.deliveryId(),
            delivery.aggregateId(),
            target,
            reason);
      }
    } while (!task.stopping() && settled.size() == settings.batchSize());
  }

  private void lookUp(DestinationClient client) throws SQLException {
    DestinationConfig config = client.config();
    List<ClaimedDelivery> claims =
        deliveries.claimUncertain(
            config.name(),
            dispatch.owner(),
            settings.batchSize(),
            dispatch.lease(),
            config.lookupGrace());
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

  private void resolve(DestinationClient client, ClaimedDelivery claim) {
    LookupResult result = client.lookUp(claim);
    Transition transition =
        switch (result) {
          case LookupResult.Found found ->
              Transition.published(found.remoteId(), "found by lookup after an uncertain attempt");
          case LookupResult.NotFound notFound ->
              claim.attempts() < dispatch.maxAttempts()
                  ? Transition.pending(
                      "lookup found no article "
                          + client.config().lookupGrace()
                          + " after the uncertain attempt: safe retry")
                  : Transition.needsReconciliation(
                      "lookup found no article but "
                          + claim.attempts()
                          + " attempts are used up: an operator decides");
          case LookupResult.Unavailable unavailable ->
              Transition.stillUncertain(unavailable.reason(), settings.lookupRetry());
        };
    try {
      Optional<DeliverySnapshot> recorded = deliveries.complete(claim, transition);
      if (recorded.isEmpty()) {
        metrics.fenced(client.config().name());
        log.warn("Discarded lookup result {} of {}: claim taken over", result, claim);
      } else if (transition.to() != DeliveryState.UNCERTAIN) {
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
