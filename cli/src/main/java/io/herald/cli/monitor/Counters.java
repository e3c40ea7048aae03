package io.herald.cli.monitor;

import java.time.Duration;
import java.util.Map;

/**
 * The counters the rates come from, and the rates between two samples: a pure function of two
 * {@link Observation}s. A counter that went down (its process restarted) counts from zero, as
 * Prometheus's {@code rate()} does.
 */
final class Counters {

  /** The writer's publish requests: a timer per route and outcome, registered on first use. */
  static final String WRITER_REQUESTS = "herald_writer_requests_seconds_count";

  /** Items of the writer's batch requests, by outcome. */
  static final String WRITER_BATCH_ITEMS = "herald_writer_batch_items_total";

  /** The consumer's delivery state changes, by new state. */
  static final String CONSUMER_TRANSITIONS = "herald_consumer_transitions_total";

  /**
   * Rates per second between two samples; a field is null when either sample lacks its counter.
   *
   * @param intervalSeconds the time between the samples
   * @param publicationsRequestedPerSecond intents the writer received: publish requests and batch
   *     items, whatever their outcome
   * @param publicationEventsPerSecond records into the publication-events topic (its end offsets)
   * @param deliveriesPublishedPerSecond deliveries that reached PUBLISHED
   */
  record Rates(
      Double intervalSeconds,
      Double publicationsRequestedPerSecond,
      Double publicationEventsPerSecond,
      Double deliveriesPublishedPerSecond) {

    static final Rates NONE = new Rates(null, null, null, null);
  }

  private Counters() {}

  /** The rates from {@code previous} to {@code current}; {@link Rates#NONE} without a previous. */
  static Rates rates(Observation previous, Observation current) {
    if (previous == null) {
      return Rates.NONE;
    }
    double seconds = Duration.between(previous.at(), current.at()).toNanos() / 1e9;
    if (seconds <= 0) {
      return Rates.NONE;
    }
    return new Rates(
        seconds,
        rate(publicationsRequested(previous), publicationsRequested(current), seconds),
        rate(publicationEvents(previous), publicationEvents(current), seconds),
        rate(deliveriesPublished(previous), deliveriesPublished(current), seconds));
  }

  /** Publish requests plus batch items; a writer that took none yet exports neither (0). */
  static Double publicationsRequested(Observation o) {
    return o.writer()
        .map(
            s ->
                s.sum(WRITER_REQUESTS, Map.of("route", "publish")).orElse(0)
                    + s.sum(WRITER_BATCH_ITEMS).orElse(0))
        .orElse(null);
  }

  static Double publicationEvents(Observation o) {
    return o.kafka().map(k -> (double) k.publicationEventsEnd()).orElse(null);
  }

  static Double deliveriesPublished(Observation o) {
    return o.consumer()
        .map(s -> s.sum(CONSUMER_TRANSITIONS, Map.of("state", "PUBLISHED")).orElse(0))
        .orElse(null);
  }

  static Double rate(Double before, Double after, double seconds) {
    if (before == null || after == null) {
      return null;
    }
    double increase = after >= before ? after - before : after;
    return increase / seconds;
  }
}
