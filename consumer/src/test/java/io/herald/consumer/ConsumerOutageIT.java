package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL or Kafka down for a while under a running consumer: every intent is still published,
 * once in effect, and the consumer reports itself healthy again without a restart.
 */
@HeraldIntegrationTest
class ConsumerOutageIT {

  private static final int INTENTS = 30;
  private static final Duration OUTAGE = Duration.ofSeconds(5);
  private static final Duration RECOVERY = Duration.ofSeconds(120);

  private final StackContext stack;

  ConsumerOutageIT(StackContext stack) {
    this.stack = stack;
  }

  @AfterEach
  void restoreTheStack() {
    // No-ops unless a test failed while a server was down: the next test needs both.
    stack.stack().postgres().start();
    stack.stack().kafka().start();
  }

  @Test
  void shouldPublishEveryIntentOnceWhenPostgresIsDownForAWhile() {
    publishAcrossAPostgresOutage("pg-outage", () -> stack.stack().postgres().stop());
  }

  /** Scenario F7: an immediate shutdown (SIGQUIT) cuts the sessions without a goodbye. */
  @Test
  void shouldPublishEveryIntentOnceWhenPostgresStopsImmediately() {
    publishAcrossAPostgresOutage("pg-crash", () -> stack.stack().postgres().stopImmediately());
  }

  private void publishAcrossAPostgresOutage(String name, Runnable stopDatabase) {
    String dest = name + "-dest";
    try (TestKit kit = new TestKit(stack, name, 2)) {
      // Idempotent: a request sent before the outage whose result could not be recorded is
      // uncertain, and sending it again with the same key is then legal. Slow enough that the
      // outage falls in the middle of the stream.
      TestKit.Destination destination =
          kit.destination(
              dest, Behaviour.cooperative().withLookup(false).withLatency(Duration.ofMillis(150)));
      List<PublicationRequested> requests = requests(dest, "a-" + name + "-");
      Map<String, String> properties = kit.properties(stack.groupId(name), destination);
      // /health waits up to this long for a connection: an outage reads DOWN in about a second.
      properties.put("consumer.db.connect-timeout", "1s");
      HeraldConsumer consumer = kit.start(properties);
      requests.forEach(kit::send);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> destination.simulator().articles().size() >= 3);

      stopDatabase.run();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> TestKit.health(consumer) == 503);
        // Down for the whole outage, as long as the database is.
        await()
            .during(OUTAGE)
            .atMost(OUTAGE.plusSeconds(5))
            .until(() -> TestKit.health(consumer) == 503);
      } finally {
        stack.stack().postgres().start();
      }

      awaitAllPublished(kit, dest);
      assertPublishedOnce(destination, requests);
      await().atMost(Duration.ofSeconds(30)).until(() -> TestKit.health(consumer) == 200);
    }
  }

  @Test
  void shouldPublishEveryIntentOnceWhenKafkaIsDownForAWhile() {
    try (TestKit kit = new TestKit(stack, "kafka-outage", 2)) {
      TestKit.Destination destination =
          kit.destination(
              "kafka-outage-dest",
              Behaviour.cooperative().withLookup(false).withLatency(Duration.ofMillis(150)));
      List<PublicationRequested> requests = requests("kafka-outage-dest", "a-kafka-");
      List<PublicationRequested> before = requests.subList(0, INTENTS / 2);
      List<PublicationRequested> after = requests.subList(INTENTS / 2, INTENTS);
      HeraldConsumer consumer =
          kit.start(kit.properties(stack.groupId("kafka-outage"), destination));
      before.forEach(kit::send);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> destination.simulator().articles().size() >= 3);

      stack.stack().kafka().stop();
      try {
        // The deliveries already received do not need Kafka: they are all published during the
        // outage, and nothing else happens for as long as it lasts.
        await()
            .during(OUTAGE)
            .atMost(Duration.ofSeconds(60))
            .until(() -> published(kit, "kafka-outage-dest") == before.size());
      } finally {
        stack.stack().kafka().start();
      }
      after.forEach(kit::send);

      awaitAllPublished(kit, "kafka-outage-dest");
      assertPublishedOnce(destination, requests);
      await().atMost(Duration.ofSeconds(30)).until(() -> TestKit.health(consumer) == 200);
    }
  }

  private static List<PublicationRequested> requests(String destination, String articlePrefix) {
    List<PublicationRequested> requests = new ArrayList<>();
    for (int i = 0; i < INTENTS; i++) {
      requests.add(
          TestKit.request(
              new PublicationKey("t1", articlePrefix + i, "r-1", destination), "Article " + i));
    }
    return requests;
  }

  private static void awaitAllPublished(TestKit kit, String destination) {
    // The test's own pool may hand out a connection broken by the outage once: ask again.
    await()
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> published(kit, destination) == INTENTS);
  }

  private static int published(TestKit kit, String destination) {
    return Integer.parseInt(
        kit.query(
                "SELECT count(*) FROM consumer.delivery WHERE destination = ?"
                    + " AND state = 'PUBLISHED'",
                destination)
            .getFirst());
  }

  private static void assertPublishedOnce(
      TestKit.Destination destination, List<PublicationRequested> requests) {
    for (PublicationRequested request : requests) {
      assertEquals(
          1,
          destination.simulator().articleCount(request.idempotencyKey()),
          request.key().toString());
    }
    assertEquals(requests.size(), destination.simulator().articles().size());
  }
}
