package io.herald.writer.status;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * The status view's counters: {@code herald.writer.status.events{outcome}} with outcome {@code
 * applied}, {@code duplicate}, {@code stale}, {@code unknown_job} or {@code invalid}, and {@code
 * herald.writer.status.failures} (batches that failed and were read again). Registered at start so
 * they show 0 rather than nothing. Thread-safe.
 */
final class StatusMetrics {

  static final String EVENTS = "herald.writer.status.events";
  static final String FAILURES = "herald.writer.status.failures";

  private final Map<StatusStore.Outcome, Counter> outcomes =
      new EnumMap<>(StatusStore.Outcome.class);
  private final Counter invalid;
  private final Counter failures;

  StatusMetrics(MeterRegistry registry) {
    for (StatusStore.Outcome outcome : StatusStore.Outcome.values()) {
      outcomes.put(
          outcome,
          Counter.builder(EVENTS)
              .description("Status events read from the delivery-events topic, by outcome")
              .tag("outcome", outcome.tag)
              .register(registry));
    }
    invalid =
        Counter.builder(EVENTS)
            .description("Status events read from the delivery-events topic, by outcome")
            .tag("outcome", "invalid")
            .register(registry);
    failures =
        Counter.builder(FAILURES)
            .description("Status batches that failed (database or broker) and were read again")
            .register(registry);
  }

  void outcome(StatusStore.Outcome outcome) {
    outcomes.get(outcome).increment();
  }

  void invalid() {
    invalid.increment();
  }

  void failure() {
    failures.increment();
  }
}
