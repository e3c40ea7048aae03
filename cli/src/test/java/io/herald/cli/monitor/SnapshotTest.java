package io.herald.cli.monitor;

import static io.herald.cli.monitor.Observations.NAMES;
import static io.herald.cli.monitor.Observations.T0;
import static io.herald.cli.monitor.Observations.down;
import static io.herald.cli.monitor.Observations.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotTest {

  static final Scrape CONSUMER = Scrape.parse(ScrapeTest.CONSUMER);

  @Test
  void shouldListEveryStateAndTheOldestAgesOfTheWatchedOnes() {
    Observation o = with(down(T0), "consumer", CONSUMER);
    o = with(o, "oldest", Map.of("NEEDS_RECONCILIATION", T0.minusSeconds(125)));

    Snapshot s = Snapshot.of(NAMES, null, null, o);

    assertThat(s.deliveries())
        .containsExactly(
            Map.entry("PENDING", 0L),
            Map.entry("DISPATCHING", 0L),
            Map.entry("RETRY_WAIT", 0L),
            Map.entry("UNCERTAIN", 0L),
            Map.entry("NEEDS_RECONCILIATION", 2L),
            Map.entry("PUBLISHED", 1L),
            Map.entry("FAILED", 0L),
            Map.entry("ABANDONED", 0L),
            Map.entry("UNKNOWN_DESTINATION", 0L));
    assertThat(s.needsReconciliation()).isEqualTo(new Snapshot.Attention(2L, 125.0));
    assertThat(s.uncertain()).isEqualTo(new Snapshot.Attention(0L, null));
    assertThat(s.anyReached()).isTrue();
  }

  @Test
  void shouldLeaveEveryFigureNullAndSayWhyWhenNothingAnswers() {
    Snapshot s = Snapshot.of(NAMES, null, null, down(T0));

    assertThat(s.anyReached()).isFalse();
    assertThat(s.deliveries()).isNull();
    assertThat(s.uncertain().count()).isNull();
    assertThat(s.relay()).isEqualTo(new Snapshot.Relay(null, null));
    assertThat(s.consumerLag())
        .isEqualTo(new Snapshot.ConsumerLag("herald-consumer", "herald.publication.events", null));
    assertThat(s.sources())
        .extracting(Snapshot.Source::name, Snapshot.Source::status)
        .containsExactly(
            tuple("writer", "unreachable: Connection refused"),
            tuple("relay", "unreachable: Connection refused"),
            tuple("consumer", "unreachable: Connection refused"),
            tuple("operator-api", "not configured: no operator token"),
            tuple("kafka", "unreachable: no answer within 5 s"));
  }

  @Test
  void shouldTakeTheRelayStateFromHealthElseFromTheStreamingGauge() {
    Observation gaugeOnly =
        with(
            down(T0),
            "relay",
            Scrape.parse(
                "herald_relay_streaming{process=\"relay\"} 0.0\n"
                    + "herald_relay_slot_lag_bytes{process=\"relay\"} -1.0\n"));
    assertThat(Snapshot.of(NAMES, null, null, gaugeOnly).relay())
        .isEqualTo(new Snapshot.Relay("standby", null));

    Observation both =
        with(
            with(
                down(T0),
                "relay",
                Scrape.parse(
                    "herald_relay_streaming{process=\"relay\"} 1.0\n"
                        + "herald_relay_slot_lag_bytes{process=\"relay\"} 4096.0\n")),
            "relayHealth",
            new RelayHealth("STREAMING", Duration.ofMillis(1500)));
    Snapshot s = Snapshot.of(NAMES, null, null, both);
    assertThat(s.relay()).isEqualTo(new Snapshot.Relay("streaming", 4096L));
    assertThat(s.heartbeat()).isEqualTo(new Snapshot.Heartbeat("relay last batch", 1.5));
  }

  @Test
  void shouldPreferTheHeartbeatTopicsLastRecordAndCountDeadLettersSinceTheBaseline() {
    Observation o =
        with(
            with(down(T0), "relayHealth", new RelayHealth("STREAMING", Duration.ofSeconds(1))),
            "kafka",
            new KafkaFacts(40, 3L, 12, 9, T0.minusSeconds(30), T0.minusSeconds(8)));

    Snapshot s = Snapshot.of(NAMES, 10L, null, o);

    assertThat(s.heartbeat())
        .isEqualTo(new Snapshot.Heartbeat("topic __debezium-heartbeat.herald", 8.0));
    assertThat(s.dlq()).isEqualTo(new Snapshot.DeadLetters(2L, 9L, 30.0));
    assertThat(s.consumerLag().records()).isEqualTo(3L);
  }

  @Test
  void shouldPrintAsOneJsonObjectWithNullsForWhatIsUnknown() throws Exception {
    Snapshot s = Snapshot.of(NAMES, null, null, with(down(T0), "consumer", CONSUMER));

    JsonNode json = Json.mapper().readTree(Json.mapper().writeValueAsString(s));

    assertThat(json.path("at").asText()).isEqualTo("2026-12-01T12:00:00Z");
    assertThat(json.path("deliveries").path("PUBLISHED").asLong()).isEqualTo(1);
    assertThat(json.path("needsReconciliation").path("count").asLong()).isEqualTo(2);
    assertThat(json.path("needsReconciliation").has("oldestAgeSeconds")).isTrue();
    assertThat(json.path("consumerLag").path("records").isNull()).isTrue();
    assertThat(json.path("sources").get(0).path("status").asText()).startsWith("unreachable");
    assertThat(json.path("anyReached").asBoolean()).isTrue();
  }
}
