package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The relay's delivery contract with Herald's Debezium patches on (the shipped setting) and a 20 ms
 * {@code relay.sink.linger}, so the lingering hand-off keeps the same contract; {@link
 * RelayDeliveryStockDebeziumIT} runs the same test on stock Debezium (where no linger applies), so
 * a Debezium upgrade can be tried with one switch ({@code relay.engine.debezium-patches}).
 */
@HeraldIntegrationTest
class RelayDeliveryIT {

  private static final int EVENTS = Scale.of(10_000);
  private static final int KEYS = 50;

  /** The relay settings this run adds to the shipped file. */
  Map<String, String> relaySettings() {
    return Map.of("relay.engine.debezium-patches", "true", "relay.sink.linger", "20ms");
  }

  @Test
  void shouldPublishEveryOutboxRowWithItsKeyAndHeadersInCommitOrderPerKey(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, getClass().getSimpleName());
    OutboxRows writer = fixture.writerOutbox(KEYS);
    try (RelayFixture.Relay relay = fixture.start(relaySettings());
        EventCollector events = fixture.collect(fixture.publicationEvents);
        EventCollector statuses = fixture.collect(fixture.deliveryEvents)) {
      long started = System.nanoTime();
      List<UUID> ids = new ArrayList<>();
      int third = EVENTS / 3;
      ids.addAll(writer.insert(third, 1));
      ids.addAll(writer.insert(third, 10));
      ids.addAll(writer.insert(EVENTS - 2 * third, 100));
      List<UUID> statusIds = fixture.consumerOutbox(5).insert(20, 5);

      events.awaitIds(ids, Duration.ofMinutes(4)).drain(Duration.ofSeconds(1));
      statuses.awaitIds(statusIds, Duration.ofMinutes(1));
      System.out.printf(
          "%s: %d events (tx of 1, 10, 100 rows) delivered in %d ms, %d duplicates%n",
          getClass().getSimpleName(),
          ids.size(),
          Duration.ofNanos(System.nanoTime() - started).toMillis(),
          events.duplicates());

      events.assertIdsExactly(ids);
      statuses.assertIdsExactly(statusIds);
      assertThat(events.duplicates()).isZero();
      Map<String, Integer> partitionOfKey = new HashMap<>();
      for (ReceivedEvent event : events.events()) {
        assertThat(event.key()).isEqualTo(OutboxRows.key(event.seq(), KEYS));
        assertThat(event.headers().keySet()).isEqualTo(Set.of("id", "eventType", "tenant"));
        assertThat(event.headers()).containsEntry("eventType", OutboxRows.EVENT_TYPE);
        assertThat(event.headers()).containsEntry("tenant", OutboxRows.TENANT);
        assertThat(event.value()).startsWith("{").contains("\"seq\": " + event.seq());
        Integer previous = partitionOfKey.putIfAbsent(event.key(), event.partition());
        assertThat(previous == null || previous == event.partition()).isTrue();
      }
      events.assertCommitOrderPerKey();
      assertThat(relay.process().isAlive()).isTrue();
    }
  }
}
