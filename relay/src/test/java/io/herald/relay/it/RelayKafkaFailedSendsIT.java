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
  private static final int BACKLOG = 60_000;

  /**
   * Kafka fails the sends of a backlog drain while the sink has full batches in flight (a short
   * {@code delivery.timeout.ms}, so the producer gives up within the outage): the sink re-sends
   * from the first unacknowledged record, the later batches in flight included, and once Kafka is
   * back every event arrives, in commit order per key.
   */
  @Test
  void shouldResendEveryBatchInFlightInOrderWhenKafkaFailsThemMidDrain(StackContext context)
      throws Exception {
    RelayFixture fixture = new RelayFixture(context, "kafka-fails-drain");
    List<UUID> ids = fixture.writerOutbox(50).insert(BACKLOG, 100);
    Map<String, String> failFast =
        Map.of(
            "debezium.sink.kafka.producer.request.timeout.ms", "1500",
            "debezium.sink.kafka.producer.delivery.timeout.ms", "3000",
            "relay.sink.retry.initial-backoff", "200ms",
            "relay.sink.retry.max-backoff", "1s");
    try (RelayFixture.Relay relay = fixture.start(failFast);
        EventCollector events = fixture.collect(fixture.publicationEvents)) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> events.poll().size() > BACKLOG / 20);

      context.stack().kafka().stop();
      Awaitility.await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> relay.metric("herald_relay_send_errors_total") >= 1);
      int arrivedBeforeRestart = events.poll().size();
      context.stack().kafka().start();

      events.awaitIds(ids, Duration.ofMinutes(4)).drain(Duration.ofSeconds(1));
      String resend =
          relay
              .process()
              .log()
              .lines()
              .filter(line -> line.contains("batches in flight"))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("no re-send logged:\n" + relay.process().log()));
      System.out.printf(
          "RelayKafkaFailedSendsIT: Kafka stopped mid-drain with %d of %d events arrived; %d duplicates"
              + " after the re-sends; first re-send: %s%n",
          arrivedBeforeRestart,
          ids.size(),
          events.duplicates(),
          resend.substring(resend.indexOf("Kafka did not acknowledge")));
      assertThat(relay.process().isAlive()).as("relay alive after the failed sends").isTrue();
      assertThat(arrivedBeforeRestart)
          .as("Kafka stopped before the drain ended")
          .isLessThan(ids.size());
      // The sends that failed were pipelined: batches after the failed one were in flight too.
      assertThat(Integer.parseInt(resend.replaceAll(".*\\((\\d+) batches in flight\\).*", "$1")))
          .isGreaterThan(1);
      events.assertIdsExactly(ids);
      events.assertCommitOrderPerKey();
    }
  }
}
