package io.herald.consumer.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.breaker.BreakerSignal;
import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Unsettled;
import io.herald.consumer.destination.DestinationProfile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ConsumerMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ConsumerMetrics metrics = new ConsumerMetrics(registry);

  @Test
  void shouldLabelEachDestinationWithItsTierAndWindow() {
    metrics.destination("dest-a", DestinationProfile.Preset.STRIPE_LIKE.profile());
    metrics.destination("dest-b", DestinationProfile.Preset.NONE.profile());

    assertEquals(
        1.0,
        registry
            .get("herald.consumer.destination.info")
            .tag("destination", "dest-a")
            .tag("tier", "exactly-once-in-effect")
            .tag(
                "guarantee",
                "exactly-once in effect (key Idempotency-Key, window 1d, then operator)")
            .gauge()
            .value());
    assertEquals(86_400.0, window("dest-a"));
    assertEquals(0.0, window("dest-b"));
  }

  @Test
  void shouldSetTheBudgetOfEachDestinationAndZeroWhatTheReadingLacks() {
    metrics.destination("dest-a", DestinationProfile.Preset.STRIPE_LIKE.profile());
    metrics.destination("dest-b", DestinationProfile.Preset.NONE.profile());
    metrics.unsettled(
        List.of(
            new Unsettled("dest-a", DeliveryState.UNCERTAIN, 3, 120),
            new Unsettled("dest-b", DeliveryState.NEEDS_RECONCILIATION, 1, 7200)));

    metrics.unsettled(
        List.of(
            new Unsettled("dest-a", DeliveryState.UNCERTAIN, 2, 180),
            new Unsettled("gone", DeliveryState.UNCERTAIN, 9, 9)));

    assertEquals(2.0, gauge("unsettled", "dest-a", DeliveryState.UNCERTAIN));
    assertEquals(180.0, gauge("unsettled.oldest.age.seconds", "dest-a", DeliveryState.UNCERTAIN));
    assertEquals(0.0, gauge("unsettled", "dest-b", DeliveryState.NEEDS_RECONCILIATION));
    assertEquals(
        0.0, gauge("unsettled.oldest.age.seconds", "dest-b", DeliveryState.NEEDS_RECONCILIATION));
  }

  @Test
  void shouldExportEachLanesPauseAndBreakerUnderTheNamesTheAlertsUse() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ConsumerMetrics lanes = new ConsumerMetrics(prometheus);
    CircuitBreaker breaker =
        new CircuitBreaker(new BreakerSettings(1, Duration.ofMinutes(1)), Clock.systemUTC());
    AtomicBoolean paused = new AtomicBoolean(true);
    lanes.lane("dest-a", breaker, paused::get);

    breaker.record(BreakerSignal.UNWELL);
    String scrape = prometheus.scrape();

    assertTrue(
        scrape.contains("herald_consumer_destination_paused{destination=\"dest-a\"} 1"), scrape);
    assertTrue(
        scrape.contains("herald_consumer_destination_breaker_state{destination=\"dest-a\"} 2"),
        scrape);
    assertTrue(
        scrape.contains(
            "herald_consumer_destination_breaker_opened_total{destination=\"dest-a\"} 1"),
        scrape);
    paused.set(false);
    assertTrue(
        prometheus
            .scrape()
            .contains("herald_consumer_destination_paused{destination=\"dest-a\"} 0"));
    prometheus.close();
  }

  private double window(String destination) {
    return registry
        .get("herald.consumer.destination.dedup.window.seconds")
        .tag("destination", destination)
        .gauge()
        .value();
  }

  private double gauge(String name, String destination, DeliveryState state) {
    return registry
        .get("herald.consumer.destination." + name)
        .tag("destination", destination)
        .tag("state", state.name())
        .gauge()
        .value();
  }
}
