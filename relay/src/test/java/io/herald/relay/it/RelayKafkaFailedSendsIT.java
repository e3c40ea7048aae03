package io.herald.relay.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Kafka failing the sink's sends (not only delaying them) while batches are pipelined. */
@HeraldIntegrationTest
class RelayKafkaFailedSendsIT {

  /** Rows waiting before the relay starts: long enough a drain to stop Kafka in the middle. */
  private static final int BACKLOG = 150_000;

  /**
   * Kafka fails the sends of a backlog drain while the sink has full batches in its open
   * transaction (a short {@code delivery.timeout.ms}, so the producer gives up within the outage):
   * the sink aborts the transaction and re-sends every unmarked record, the later batches in flight
   * included, in a new one, and once Kafka is back every event arrives, in commit order per key.
   */
  @Test
  void shouldResendEveryBatchInFlightInOrderWhenKafkaFailsThemMidDrain(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "kafka-fails-drain");
    // One COPY: a backlog long enough that Kafka stops well before the drain ends.
    List<UUID> ids = fixture.writerOutbox(50).copy(BACKLOG);
    Map<String, String> failFast =
        Map.of(
            "debezium.sink.kafka.producer.request.timeout.ms", "1500",
            "debezium.sink.kafka.producer.delivery.timeout.ms", "3000",
            "relay.sink.retry.initial-backoff", "200ms",
            "relay.sink.retry.max-backoff", "1s",
            // Small batches stay full through a backlog, so batches are pipelined when Kafka goes.
            "debezium.source.max.batch.size", "100",
            // No offset commit during the test: a commit waits for the offsets topic on the
            // engine's thread, outside the sink (and with the patches off, Debezium's next poll
            // reads the offsets back, with no timeout), where an outage would hold it.
            "debezium.source.offset.flush.interval.ms", "600000");
    try (RelayFixture.Relay relay = fixture.start(failFast);
        EventCollector events = fixture.collect(fixture.publicationEvents)) {
      // Stop Kafka as soon as the relay has published a few full batches, whatever the consumer
      // has read by then.
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> relay.metric("herald_relay_events_published_total") >= 2_000);
      double publishedAtStop;
      try {
        context.stack().kafka().stop();
        publishedAtStop = relay.metric("herald_relay_events_published_total");
        assertThat(publishedAtStop).as("Kafka stopped before the drain ended").isLessThan(BACKLOG);
        Awaitility.await()
            .atMost(Duration.ofMinutes(1))
            .until(() -> relay.metric("herald_relay_send_errors_total") >= 1);
      } finally {
        // The broker is shared by the suite's later tests.
        context.stack().kafka().start();
      }

      events.awaitIds(ids, Duration.ofMinutes(4)).drain(Duration.ofSeconds(1));
      // The sends that failed were pipelined: batches after the failed one were in flight too.
      int mostInFlight =
          relay
              .process()
              .log()
              .lines()
              .filter(line -> line.contains(" batches in flight)"))
              .mapToInt(
                  line ->
                      Integer.parseInt(line.replaceAll(".*\\((\\d+) batches in flight\\).*", "$1")))
              .max()
              .orElseThrow(
                  () -> new AssertionError("no re-send logged:\n" + relay.process().log()));
      System.out.printf(
          "RelayKafkaFailedSendsIT: Kafka stopped mid-drain with %.0f of %d events published; %.0f"
              + " failed sends, up to %d batches in flight when one failed; %d duplicates after the"
              + " re-sends%n",
          publishedAtStop,
          ids.size(),
          relay.metric("herald_relay_send_errors_total"),
          mostInFlight,
          events.duplicates());
      assertThat(relay.process().isAlive()).as("relay alive after the failed sends").isTrue();
      assertThat(mostInFlight).isGreaterThan(1);
      events.assertIdsExactly(ids);
      events.assertCommitOrderPerKey();
    }
  }
}
