package io.herald.writer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Request metrics: {@code herald.writer.requests} (a timer with a latency histogram, tagged {@code
 * route} and {@code outcome}: created, replayed, conflict, invalid, unauthorized, not_found,
 * too_large, unsupported_media_type, unavailable, error, ok) and {@code herald.writer.batch.items}
 * (batch items by outcome). Thread-safe.
 *
 * <p>Meters are registered on first use, one per route and outcome seen.
 */
public final class RequestMetrics {

  private final MeterRegistry registry;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> batchItems = new ConcurrentHashMap<>();

  public RequestMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One request on {@code route} that ended with {@code outcome}, taking {@code nanos}. */
  public void record(String route, String outcome, long nanos) {
    timers
        .computeIfAbsent(
            route + '\u0000' + outcome,
            key ->
                Timer.builder("herald.writer.requests")
                    .description("API requests by route and outcome")
                    .tag("route", route)
                    .tag("outcome", outcome)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** One item of a batch request that ended with {@code outcome}. */
  public void batchItem(String outcome) {
    batchItems
        .computeIfAbsent(
            outcome,
            key ->
                Counter.builder("herald.writer.batch.items")
                    .description("Items of batch requests by outcome")
                    .tag("outcome", outcome)
                    .register(registry))
        .increment();
  }
}
