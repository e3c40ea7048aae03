package io.herald.cli.monitor;

import static io.herald.cli.monitor.Observations.T0;
import static io.herald.cli.monitor.Observations.down;
import static io.herald.cli.monitor.Observations.with;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountersTest {

  private static Observation sample(
      long seconds, double publish, double batchItems, long eventsEnd, double published) {
    Observation o = down(T0.plusSeconds(seconds));
    o =
        with(
            o,
            "writer",
            Scrape.parse(
                "herald_writer_requests_seconds_count{outcome=\"created\",process=\"writer\",route=\"publish\"} "
                    + publish
                    + "\nherald_writer_requests_seconds_count{outcome=\"ok\",process=\"writer\",route=\"get\"} 1000"
                    + "\nherald_writer_batch_items_total{outcome=\"created\",process=\"writer\"} "
                    + batchItems
                    + "\n"));
    o = with(o, "kafka", new KafkaFacts(eventsEnd, 0L, 0, 0, null, null));
    return with(
        o,
        "consumer",
        Scrape.parse(
            "herald_consumer_transitions_total{process=\"consumer\",state=\"PUBLISHED\"} "
                + published
                + "\nherald_consumer_transitions_total{process=\"consumer\",state=\"UNCERTAIN\"} 99\n"));
  }

  @Test
  void shouldComputeEachRatePerSecondFromTwoSamples() {
    Counters.Rates rates = Counters.rates(sample(0, 10, 5, 100, 20), sample(2, 14, 9, 110, 23));

    assertThat(rates.intervalSeconds()).isEqualTo(2.0);
    // publish requests (not job reads) plus batch items: (4 + 4) / 2 s
    assertThat(rates.publicationsRequestedPerSecond()).isEqualTo(4.0);
    assertThat(rates.publicationEventsPerSecond()).isEqualTo(5.0);
    assertThat(rates.deliveriesPublishedPerSecond()).isEqualTo(1.5);
  }

  @Test
  void shouldHaveNoRatesWithoutAPreviousSample() {
    assertThat(Counters.rates(null, sample(0, 1, 1, 1, 1))).isEqualTo(Counters.Rates.NONE);
  }

  @Test
  void shouldLeaveARateNullWhenEitherSampleLacksItsSource() {
    Observation before = sample(0, 10, 5, 100, 20);
    Observation after = down(T0.plusSeconds(4));

    Counters.Rates rates = Counters.rates(before, after);

    assertThat(rates.intervalSeconds()).isEqualTo(4.0);
    assertThat(rates.publicationsRequestedPerSecond()).isNull();
    assertThat(rates.publicationEventsPerSecond()).isNull();
    assertThat(rates.deliveriesPublishedPerSecond()).isNull();
  }

  @Test
  void shouldCountFromZeroWhenACounterWentDownBecauseItsProcessRestarted() {
    Counters.Rates rates = Counters.rates(sample(0, 500, 0, 100, 400), sample(2, 6, 0, 100, 4));

    assertThat(rates.publicationsRequestedPerSecond()).isEqualTo(3.0);
    assertThat(rates.deliveriesPublishedPerSecond()).isEqualTo(2.0);
    assertThat(rates.publicationEventsPerSecond()).isZero();
  }

  @Test
  void shouldCountAWriterWithoutRequestsYetAsZero() {
    Observation before = with(down(T0), "writer", Scrape.parse("process_uptime_seconds 1\n"));
    Observation after = sample(1, 3, 0, 0, 0);

    assertThat(Counters.rates(before, after).publicationsRequestedPerSecond()).isEqualTo(3.0);
  }
}
