package io.herald.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ScrapeTest {

  /** As Micrometer's Prometheus registry writes it. */
  static final String CONSUMER =
      """
      # HELP herald_consumer_deliveries Deliveries per state (refreshed periodically from the database)
      # TYPE herald_consumer_deliveries gauge
      herald_consumer_deliveries{process="consumer",state="PUBLISHED"} 1.0
      herald_consumer_deliveries{process="consumer",state="NEEDS_RECONCILIATION"} 2.0
      herald_consumer_deliveries{process="consumer",state="UNCERTAIN"} 0.0
      # HELP herald_consumer_transitions_total Delivery state changes, by new state
      # TYPE herald_consumer_transitions_total counter
      herald_consumer_transitions_total{process="consumer",state="PUBLISHED"} 7.0
      herald_consumer_transitions_total{process="consumer",state="UNCERTAIN"} 3.0
      herald_consumer_dispatch_seconds_bucket{destination="d",le="+Inf",outcome="published"} 4
      jvm_gc_pause_seconds_max{action="end of minor GC",cause="G1 Evacuation Pause"} NaN
      process_uptime_seconds{process="consumer"} 12.5 1733050000000
      """;

  @Test
  void shouldReadNamesLabelsAndValuesAndSkipComments() {
    Scrape scrape = Scrape.parse(CONSUMER);

    assertThat(scrape.samples()).hasSize(8);
    assertThat(scrape.samples().get(0))
        .isEqualTo(
            new Scrape.Sample(
                "herald_consumer_deliveries",
                Map.of("process", "consumer", "state", "PUBLISHED"),
                1.0));
    assertThat(scrape.sum("herald_consumer_dispatch_seconds_bucket", Map.of("le", "+Inf")))
        .hasValue(4);
    assertThat(scrape.sum("process_uptime_seconds")).hasValue(12.5);
    assertThat(scrape.sum("jvm_gc_pause_seconds_max").getAsDouble()).isNaN();
  }

  @Test
  void shouldSumTheSeriesWhoseLabelsIncludeTheGivenOnes() {
    Scrape scrape = Scrape.parse(CONSUMER);

    assertThat(scrape.sum("herald_consumer_transitions_total")).hasValue(10);
    assertThat(scrape.sum("herald_consumer_transitions_total", Map.of("state", "PUBLISHED")))
        .hasValue(7);
    assertThat(scrape.sum("herald_consumer_transitions_total", Map.of("state", "FAILED")))
        .isEmpty();
    assertThat(scrape.sum("herald_writer_requests_seconds_count")).isEmpty();
  }

  @Test
  void shouldGroupValuesByOneLabel() {
    assertThat(Scrape.parse(CONSUMER).byLabel("herald_consumer_deliveries", "state"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("PUBLISHED", 1.0, "NEEDS_RECONCILIATION", 2.0, "UNCERTAIN", 0.0));
  }

  @Test
  void shouldUnescapeLabelValuesAndReadSamplesWithoutLabels() {
    Scrape scrape =
        Scrape.parse(
            "m{a=\"say \\\"hi\\\"\",b=\"back\\\\slash\",c=\"two\\nlines\",} -Inf\nplain 3e2\n");

    assertThat(scrape.samples().get(0).labels())
        .containsEntry("a", "say \"hi\"")
        .containsEntry("b", "back\\slash")
        .containsEntry("c", "two\nlines");
    assertThat(scrape.samples().get(0).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(scrape.sum("plain")).hasValue(300);
  }

  @Test
  void shouldKeepABraceInsideALabelValue() {
    Scrape scrape = Scrape.parse("m{path=\"/v1/{id}\"} 1\n");

    assertThat(scrape.samples().get(0).labels()).containsEntry("path", "/v1/{id}");
  }

  @Test
  void shouldNameTheLineWhenTheTextIsNotPrometheus() {
    assertThatThrownBy(() -> Scrape.parse("# fine\nok 1\n<html>\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("<html>");
    assertThatThrownBy(() -> Scrape.parse("m{a=\"x\" 1\n")).hasMessageContaining("line 1");
    assertThatThrownBy(() -> Scrape.parse("m one\n")).hasMessageContaining("line 1");
  }
}
