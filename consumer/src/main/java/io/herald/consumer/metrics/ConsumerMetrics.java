package io.herald.consumer.metrics;

import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.destination.GuaranteeTier;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

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

  public ConsumerMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (DeliveryState state : DeliveryState.values()) {
      AtomicLong value = new AtomicLong();
      deliveriesByState.put(state, value);
      Gauge.builder("herald.consumer.deliveries", value, AtomicLong::doubleValue)
          .description("Deliveries per state (refreshed periodically from the database)")
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
   * {@code herald_consumer_destination_info{destination,tier} 1}: the guarantee tier of each
   * configured destination, for dashboards and alerts to join on.
   */
  public void destination(String destination, GuaranteeTier tier) {
    Gauge.builder("herald.consumer.destination.info", () -> 1)
        .description(
            "A configured destination and the guarantee tier its profile allows (always 1)")
        .tag("destination", destination)
        .tag("tier", tier.label())
        .register(registry);
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

  /** Sets the per-state gauges from a fresh count; absent states are zero. */
  public void deliveriesByState(Map<DeliveryState, Long> counts) {
    for (Map.Entry<DeliveryState, AtomicLong> entry : deliveriesByState.entrySet()) {
      entry.getValue().set(counts.getOrDefault(entry.getKey(), 0L));
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
