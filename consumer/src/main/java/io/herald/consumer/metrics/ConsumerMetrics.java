package io.herald.consumer.metrics;

import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Unsettled;
import io.herald.consumer.destination.DestinationProfile;
import io.herald.consumer.destination.GuaranteeTier;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The consumer's meters (guarantee 6: every failure is also a metric). Names render in Prometheus
 * as {@code herald_consumer_...}.
 *
 * <p>Thread-safe.
 */
public final class ConsumerMetrics {

  private final MeterRegistry registry;
  private final Map<DeliveryState, AtomicLong> deliveriesByState =
      new EnumMap<>(DeliveryState.class);
  private final Map<DeliveryState, AtomicLong> oldestUnsettled = new EnumMap<>(DeliveryState.class);

  private static final List<DeliveryState> UNSETTLED =
      List.of(DeliveryState.UNCERTAIN, DeliveryState.NEEDS_RECONCILIATION);
  private final Map<String, AtomicLong> unsettledCount = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> unsettledAge = new ConcurrentHashMap<>();

  public ConsumerMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (DeliveryState state : DeliveryState.values()) {
      AtomicLong value = new AtomicLong();
      deliveriesByState.put(state, value);
      Gauge.builder("herald.consumer.deliveries", value, AtomicLong::doubleValue)
          .description(
              "Deliveries per state, counted by the reconciler: open states every round, final"
                  + " states as often as their count takes at most 2 % of the time")
          .tag("state", state.name())
          .register(registry);
    }
    for (DeliveryState state :
        new DeliveryState[] {DeliveryState.UNCERTAIN, DeliveryState.NEEDS_RECONCILIATION}) {
      AtomicLong value = new AtomicLong();
      oldestUnsettled.put(state, value);
      Gauge.builder("herald.consumer.oldest.unsettled.age.seconds", value, AtomicLong::doubleValue)
          .description(
              "Age of the oldest delivery in the state since its outcome became unknown, 0 when"
                  + " there is none (refreshed with the per-state counts)")
          .tag("state", state.name())
          .register(registry);
    }
  }

  /**
   * Registers a configured destination: {@code
   * herald_consumer_destination_info{destination,tier,guarantee} 1} (its guarantee tier, as a label
   * value and as operators read it), {@code herald_consumer_destination_dedup_window_seconds} (0
   * without a key), and its uncertainty budget, {@code
   * herald_consumer_destination_unsettled{destination,state}} and {@code
   * herald_consumer_destination_unsettled_oldest_age_seconds{destination,state}} for UNCERTAIN and
   * NEEDS_RECONCILIATION, set by {@link #unsettled}.
   */
  public void destination(String destination, DestinationProfile profile) {
    GuaranteeTier tier = profile.tier();
    Gauge.builder("herald.consumer.destination.info", () -> 1)
        .description(
            "A configured destination and the guarantee tier its profile allows (always 1)")
        .tag("destination", destination)
        .tag("tier", tier.label())
        .tag("guarantee", profile.guarantee())
        .register(registry);
    long window = profile.idempotencyHeader().isPresent() ? profile.dedupWindow().toSeconds() : 0;
    Gauge.builder("herald.consumer.destination.dedup.window.seconds", () -> window)
        .description("How long the destination remembers an idempotency key (0: it has no key)")
        .tag("destination", destination)
        .register(registry);
    for (DeliveryState state : UNSETTLED) {
      AtomicLong count = new AtomicLong();
      AtomicLong age = new AtomicLong();
      unsettledCount.put(destination + "/" + state, count);
      unsettledAge.put(destination + "/" + state, age);
      Gauge.builder("herald.consumer.destination.unsettled", count, AtomicLong::doubleValue)
          .description(
              "Deliveries of the destination in the state (refreshed every reconcile round)")
          .tag("destination", destination)
          .tag("state", state.name())
          .register(registry);
      Gauge.builder(
              "herald.consumer.destination.unsettled.oldest.age.seconds",
              age,
              AtomicLong::doubleValue)
          .description(
              "Age of the first attempt of the destination's oldest delivery in the state, 0 when"
                  + " none: compare with its dedup window")
          .tag("destination", destination)
          .tag("state", state.name())
          .register(registry);
    }
  }

  /**
   * Registers a destination's lane: {@code herald_consumer_destination_paused{destination}} (1
   * while an operator pause holds it), {@code
   * herald_consumer_destination_breaker_state{destination}} (this instance's breaker: 0 closed, 1
   * half-open, 2 open) and {@code herald_consumer_destination_breaker_opened_total{destination}}.
   */
  public void lane(String destination, CircuitBreaker breaker, BooleanSupplier paused) {
    Gauge.builder("herald.consumer.destination.paused", () -> paused.getAsBoolean() ? 1 : 0)
        .description(
            "1 while an operator pause holds the destination's deliveries (herald destinations"
                + " pause), else 0")
        .tag("destination", destination)
        .register(registry);
    Gauge.builder("herald.consumer.destination.breaker.state", () -> breaker.state().gauge())
        .description(
            "This instance's circuit breaker of the destination: 0 closed, 1 half-open, 2 open")
        .tag("destination", destination)
        .register(registry);
    FunctionCounter.builder(
            "herald.consumer.destination.breaker.opened", breaker, b -> b.snapshot().openedTotal())
        .description("Times this instance's circuit breaker of the destination opened")
        .tag("destination", destination)
        .register(registry);
  }

  /** Sets every registered destination's budget gauges from a fresh reading; absent pairs are 0. */
  public void unsettled(List<Unsettled> reading) {
    unsettledCount.values().forEach(v -> v.set(0));
    unsettledAge.values().forEach(v -> v.set(0));
    for (Unsettled u : reading) {
      AtomicLong count = unsettledCount.get(u.destination() + "/" + u.state());
      AtomicLong age = unsettledAge.get(u.destination() + "/" + u.state());
      // A destination no longer configured has no gauges; its deliveries count in the totals.
      if (count != null) {
        count.set(u.count());
        age.set(u.oldestFirstAttemptSeconds());
      }
    }
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * One received record: {@code created}, {@code duplicate}, {@code conflict}, {@code redelivered}.
   */
  public void received(String result) {
    Counter.builder("herald.consumer.records")
        .description("PublicationRequested records handled by the listener, by result")
        .tag("result", result)
        .register(registry)
        .increment();
  }

  public void deadLettered(String reason) {
    Counter.builder("herald.consumer.dlq")
        .description("Records sent to the dead-letter topic, by reason")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  public void conflict(String destination) {
    Counter.builder("herald.consumer.conflicts")
        .description("Requests refused: same business key, other payload (alert on any)")
        .tag("destination", destination)
        .register(registry)
        .increment();
  }

  public void dispatched(String destination, String outcome, Duration latency) {
    Timer.builder("herald.consumer.dispatch")
        .description("Destination calls by outcome (published, retry, permanent, uncertain)")
        .tag("destination", destination)
        .tag("outcome", outcome)
        .register(registry)
        .record(latency);
  }

  public void unknownDestination(String destination) {
    Counter.builder("herald.consumer.unknown.destination")
        .description("Deliveries created for a destination this consumer has no configuration for")
        .tag("destination", destination)
        .register(registry)
        .increment();
  }

  public void fenced(String destination) {
    Counter.builder("herald.consumer.fenced.results")
        .description("Results discarded because the claim had been taken over (fencing)")
        .tag("destination", destination)
        .register(registry)
        .increment();
  }

  /** Claims of calls in flight renewed, fenced (taken over) or not renewed (statement failed). */
  public void leaseRenewal(String result, int count) {
    Counter.builder("herald.consumer.lease.renewals")
        .description("Claim lease renewals of calls in flight, by result")
        .tag("result", result)
        .register(registry)
        .increment(count);
  }

  public void leaseRenewal(String result) {
    leaseRenewal(result, 1);
  }

  /** A call cancelled because its claim was taken over or could not be renewed in time. */
  public void leaseCancelled() {
    Counter.builder("herald.consumer.lease.cancelled")
        .description("Destination calls cancelled because their claim could not be kept")
        .register(registry)
        .increment();
  }

  public void transition(DeliveryState to) {
    Counter.builder("herald.consumer.transitions")
        .description("Delivery state changes, by new state")
        .tag("state", to.name())
        .register(registry)
        .increment();
  }

  public void loopFailure(String loop) {
    Counter.builder("herald.consumer.loop.failures")
        .description("Failed iterations of a background loop (database or broker unavailable)")
        .tag("loop", loop)
        .register(registry)
        .increment();
  }

  /**
   * Sets the gauges of the final states ({@code finished}) or of the others from a fresh count of
   * them; absent states among them are zero, the rest keep their last count.
   */
  public void deliveriesByState(Map<DeliveryState, Long> counts, boolean finished) {
    for (Map.Entry<DeliveryState, AtomicLong> entry : deliveriesByState.entrySet()) {
      if (entry.getKey().isFinal() == finished) {
        entry.getValue().set(counts.getOrDefault(entry.getKey(), 0L));
      }
    }
  }

  /** Sets the oldest-age gauges from a fresh reading; absent states are zero (none). */
  public void oldestUnsettledSeconds(Map<DeliveryState, Long> ages) {
    for (Map.Entry<DeliveryState, AtomicLong> entry : oldestUnsettled.entrySet()) {
      entry.getValue().set(ages.getOrDefault(entry.getKey(), 0L));
    }
  }

  public double count(String name, String tagKey, String tagValue) {
    Counter counter = registry.find(name).tag(tagKey, tagValue).counter();
    return counter == null ? 0 : counter.count();
  }
}
