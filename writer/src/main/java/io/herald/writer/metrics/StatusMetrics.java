package io.herald.writer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The status view's counters: {@code herald.writer.status.events{outcome}} with one outcome per
 * constant of the status store's outcome enum ({@code applied}, {@code duplicate}, {@code stale},
 * {@code unknown_job}) plus {@code invalid}, and {@code herald.writer.status.failures} (batches
 * that failed and were read again). Registered at start so they show 0 rather than nothing.
 *
 * <p>The outcome type is a parameter so that this package depends on no component package (each
 * component depends on it). Thread-safe.
 */
public final class StatusMetrics {

  public static final String EVENTS = "herald.writer.status.events";
  public static final String FAILURES = "herald.writer.status.failures";

  private static final String EVENTS_DOC =
      "Status events read from the delivery-events topic, by outcome";

  private final Map<Enum<?>, Counter> outcomes = new HashMap<>();
  private final Counter invalid;
  private final Counter failures;

  /**
   * @param outcomes every outcome of applying an event
   * @param tag the {@code outcome} tag of each
   */
  public <E extends Enum<E>> StatusMetrics(
      MeterRegistry registry, Class<E> outcomes, Function<E, String> tag) {
    for (E outcome : outcomes.getEnumConstants()) {
      this.outcomes.put(
          outcome,
          Counter.builder(EVENTS)
              .description(EVENTS_DOC)
              .tag("outcome", tag.apply(outcome))
              .register(registry));
    }
    invalid =
        Counter.builder(EVENTS)
            .description(EVENTS_DOC)
            .tag("outcome", "invalid")
            .register(registry);
    failures =
        Counter.builder(FAILURES)
            .description("Status batches that failed (database or broker) and were read again")
            .register(registry);
  }

  /** One event applied with {@code outcome}, a constant of the enum given at construction. */
  public void outcome(Enum<?> outcome) {
    Counter counter = outcomes.get(outcome);
    if (counter == null) {
      throw new IllegalArgumentException("not an outcome registered at start: " + outcome);
    }
    counter.increment();
  }

  /** One event that could not be decoded (skipped). */
  public void invalid() {
    invalid.increment();
  }

  /** One batch that failed and will be read again. */
  public void failure() {
    failures.increment();
  }
}
