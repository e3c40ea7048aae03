package io.herald.cli.monitor;

import static io.herald.cli.monitor.Observations.NAMES;
import static io.herald.cli.monitor.Observations.T0;
import static io.herald.cli.monitor.Observations.down;
import static io.herald.cli.monitor.Observations.with;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScreenTest {

  private static Snapshot consumerOnly() {
    Observation o = with(down(T0), "consumer", SnapshotTest.CONSUMER);
    o = with(o, "oldest", Map.of("NEEDS_RECONCILIATION", T0.minusSeconds(125)));
    o = with(o, "kafka", new KafkaFacts(4, 0L, 0, 0, null, null));
    return Snapshot.of(NAMES, 0L, null, o);
  }

  @Test
  void shouldShowDeliveriesForAnUnknownDestinationWithTheOldestAge() {
    Scrape consumer =
        Scrape.parse(
            ScrapeTest.CONSUMER
                + "herald_consumer_deliveries{process=\"consumer\",state=\"UNKNOWN_DESTINATION\"}"
                + " 3.0\n");
    Observation o = with(down(T0), "consumer", consumer);
    o = with(o, "oldest", Map.of("UNKNOWN_DESTINATION", T0.minusSeconds(30)));

    Snapshot s = Snapshot.of(NAMES, null, null, o);

    assertThat(s.unknownDestination()).isEqualTo(new Snapshot.Attention(3L, 30.0));
    assertThat(Screen.render(s, false))
        .containsPattern("(?m)^unknown destination +3, oldest 30s$")
        .containsPattern("(?m)^deliveries +.*ABANDONED 0  UNKNOWN_DESTINATION 3$");
    assertThat(Screen.render(consumerOnly(), false))
        .containsPattern("(?m)^unknown destination +0$");
  }

  @Test
  void shouldShowEachFigureOnItsLineAndUnreachableWhereItsSourceDidNotAnswer() {
    String text = Screen.render(consumerOnly(), false);

    assertThat(text)
        .startsWith("herald monitor  2026-12-01T12:00:00Z\n")
        .containsPattern(
            "(?m)^rates in +requested unreachable \\(writer\\), events -/s \\(publication events topic\\)$")
        .containsPattern("(?m)^rates out +published -/s$")
        .containsPattern("(?m)^deliveries +PENDING 0 .*NEEDS_RECONCILIATION 2  PUBLISHED 1 ")
        .containsPattern("(?m)^uncertain +0$")
        .containsPattern("(?m)^needs reconciliation +2, oldest 2m05s$")
        .containsPattern("(?m)^dlq arrivals +0 since start, 0 on the topic$")
        .containsPattern("(?m)^relay +unreachable$")
        .containsPattern("(?m)^slot lag +unreachable$")
        .containsPattern("(?m)^last heartbeat +none$")
        .containsPattern(
            "(?m)^consumer lag +0 records \\(group herald-consumer on herald.publication.events\\)$")
        .containsPattern("(?m)^  writer +http://127.0.0.1:8081  unreachable: Connection refused$")
        .containsPattern("(?m)^  consumer +http://127.0.0.1:8083  ok$")
        .doesNotContain("\u001b");
  }

  @Test
  void shouldShowEachDestinationsGuaranteeAsTheConsumerReportsIt() {
    Scrape consumer =
        Scrape.parse(
            ScrapeTest.CONSUMER
                + "herald_consumer_destination_info{destination=\"dest-b\","
                + "guarantee=\"at-most-once, operator decides\",tier=\"at-most-once-operator\"} 1.0\n"
                + "herald_consumer_destination_info{destination=\"dest-a\","
                + "guarantee=\"exactly-once in effect (key Idempotency-Key, window 1d, then lookup)\","
                + "tier=\"exactly-once-in-effect\"} 1.0\n");

    String text =
        Screen.render(Snapshot.of(NAMES, 0L, null, with(down(T0), "consumer", consumer)), false);
    String down = Screen.render(Snapshot.of(NAMES, 0L, null, down(T0)), false);

    assertThat(text)
        .containsPattern(
            "(?m)^guarantees +dest-a: exactly-once in effect \\(key Idempotency-Key, window 1d,"
                + " then lookup\\); dest-b: at-most-once, operator decides$");
    assertThat(down).containsPattern("(?m)^guarantees +unreachable$");
  }

  @Test
  void shouldMarkAPausedDestinationAndAnOpenBreakerInTheGuaranteesRow() {
    Scrape consumer =
        Scrape.parse(
            ScrapeTest.CONSUMER
                + "herald_consumer_destination_info{destination=\"dest-a\","
                + "guarantee=\"effect-once by lookup\",tier=\"effect-once-by-lookup\"} 1.0\n"
                + "herald_consumer_destination_info{destination=\"dest-b\","
                + "guarantee=\"at-most-once, operator decides\",tier=\"at-most-once-operator\"} 1.0\n"
                + "herald_consumer_destination_info{destination=\"dest-c\","
                + "guarantee=\"effect-once by lookup\",tier=\"effect-once-by-lookup\"} 1.0\n"
                + "herald_consumer_destination_paused{destination=\"dest-a\"} 1.0\n"
                + "herald_consumer_destination_paused{destination=\"dest-b\"} 0.0\n"
                + "herald_consumer_destination_breaker_state{destination=\"dest-a\"} 0.0\n"
                + "herald_consumer_destination_breaker_state{destination=\"dest-b\"} 2.0\n"
                + "herald_consumer_destination_breaker_state{destination=\"dest-c\"} 1.0\n");

    String text =
        Screen.render(Snapshot.of(NAMES, 0L, null, with(down(T0), "consumer", consumer)), false);

    assertThat(text)
        .containsPattern(
            "(?m)^guarantees +dest-a: effect-once by lookup \\[paused\\]; dest-b: at-most-once,"
                + " operator decides \\[breaker open\\]; dest-c: effect-once by lookup"
                + " \\[breaker half-open\\]$");
  }

  @Test
  void shouldShowRatesOnceThereIsAPreviousSample() {
    Observation before =
        with(
            with(
                down(T0),
                "consumer",
                Scrape.parse("herald_consumer_transitions_total{state=\"PUBLISHED\"} 10\n")),
            "kafka",
            new KafkaFacts(100, 0L, 0, 0, null, null));
    Observation after =
        with(
            with(
                down(T0.plusSeconds(2)),
                "consumer",
                Scrape.parse("herald_consumer_transitions_total{state=\"PUBLISHED\"} 15\n")),
            "kafka",
            new KafkaFacts(106, 0L, 0, 0, null, null));

    String text = Screen.render(Snapshot.of(NAMES, 0L, before, after), false);

    assertThat(text)
        .containsPattern("(?m)^rates in +requested unreachable \\(writer\\), events 3.0/s ")
        .containsPattern("(?m)^rates out +published 2.5/s$");
  }

  @Test
  void shouldSayWhyAnAgeIsMissingWhenTheOperatorApiIsNotConfigured() {
    Snapshot s = Snapshot.of(NAMES, null, null, with(down(T0), "consumer", SnapshotTest.CONSUMER));

    assertThat(Screen.render(s, false))
        .containsPattern("(?m)^needs reconciliation +2 \\(age: operator API not configured\\)$")
        .containsPattern(
            "(?m)^  operator-api +http://127.0.0.1:8083/v1/deliveries  not configured: no operator token$");
  }

  @Test
  void shouldShowTheRelayAndItsHeartbeat() {
    Observation o =
        with(
            with(
                down(T0),
                "relay",
                Scrape.parse("herald_relay_streaming 1\nherald_relay_slot_lag_bytes 1572864\n")),
            "relayHealth",
            new RelayHealth("STREAMING", Duration.ofMillis(3200)));

    assertThat(Screen.render(Snapshot.of(NAMES, null, null, o), false))
        .containsPattern("(?m)^relay +streaming$")
        .containsPattern("(?m)^slot lag +1.5 MiB$")
        .containsPattern("(?m)^last heartbeat +3s ago \\(relay last batch\\)$");
  }

  @Test
  void shouldRedrawInPlaceWithAnsiEscapes() {
    String frame = Screen.render(consumerOnly(), true);

    assertThat(frame).startsWith(Screen.HOME).endsWith(Screen.CLEAR_BELOW);
    assertThat(frame.lines().filter(line -> !line.endsWith(Screen.CLEAR_LINE)).toList())
        .as("every line clears what the previous frame left on it")
        .containsExactly(Screen.CLEAR_BELOW);
    assertThat(frame)
        .contains("\u001b[31munreachable\u001b[0m")
        .contains("\u001b[31m2\u001b[0m, oldest 2m05s");
  }

  @Test
  void shouldWriteDurationsAndBytesCompactly() {
    assertThat(Screen.duration(0.4)).isEqualTo("0s");
    assertThat(Screen.duration(59.9)).isEqualTo("59s");
    assertThat(Screen.duration(125)).isEqualTo("2m05s");
    assertThat(Screen.duration(7500)).isEqualTo("2h05m");
    assertThat(Screen.duration(90_000)).isEqualTo("1d01h");
    assertThat(Screen.bytes(512)).isEqualTo("512 B");
    assertThat(Screen.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(Screen.bytes(3L << 30)).isEqualTo("3.0 GiB");
  }
}
