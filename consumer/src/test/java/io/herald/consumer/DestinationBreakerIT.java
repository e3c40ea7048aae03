package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Per-destination circuit breaking and operator pauses against real PostgreSQL, Kafka and the
 * simulator (issue 17 item 6): a 5xx storm at one destination opens its breaker, holding only its
 * deliveries while another destination's keep being published; a probe closes it and every delivery
 * is published once. An operator's pause holds a destination across a consumer restart and its
 * resume releases the waiting deliveries. Attempts exhausted, breaker or not, end FAILED where
 * every outcome was definite and NEEDS_RECONCILIATION where one was uncertain.
 */
@HeraldIntegrationTest
class DestinationBreakerIT {

  private static final int SICK = 8;
  private static final int HEALTHY = 10;
  private static final int STORM = 5;
  private static final String TOKEN = "op-token";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void shouldHoldOnlyTheStormedDestinationWhileItsBreakerIsOpenThenPublishEverythingOnce(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "breaker-storm", 2)) {
      TestKit.Destination sick = kit.destination("sick", Behaviour.cooperative());
      TestKit.Destination healthy = kit.destination("healthy", Behaviour.cooperative());
      Map<String, String> properties = kit.properties("breaker-storm", sick, healthy);
      properties.put("consumer.destinations.sick.breaker.failures", "3");
      // Long enough for the healthy destination's deliveries to be published while it is open.
      properties.put("consumer.destinations.sick.breaker.open-for", "6s");
      sick.simulator().failNext(new Fault.Status(500), STORM);
      HeraldConsumer consumer = kit.start(properties);

      List<PublicationRequested> sickRequests = send(kit, "sick", SICK);
      await().atMost(Duration.ofSeconds(60)).until(() -> breakerState(consumer, "sick") == 2.0);
      long openedWhenSeen = openedTotal(consumer, "sick");
      int requestsWhenSeen = requests(sick, sickRequests);
      List<PublicationRequested> healthyRequests = send(kit, "healthy", HEALTHY);
      for (PublicationRequested request : healthyRequests) {
        kit.awaitState(request.key(), DeliveryState.PUBLISHED);
      }
      // Nothing reached the sick destination while its breaker stayed open (the same opening).
      boolean stillOpen =
          breakerState(consumer, "sick") == 2.0 && openedTotal(consumer, "sick") == openedWhenSeen;
      if (breakerState(consumer, "sick") == 2.0
          && openedTotal(consumer, "sick") == openedWhenSeen) {
        assertEquals(requestsWhenSeen, requests(sick, sickRequests), "sent while open");
        for (PublicationRequested request : sickRequests) {
          assertTrue(
              EnumSet.of(
                      DeliveryState.PENDING,
                      DeliveryState.RETRY_WAIT,
                      DeliveryState.UNCERTAIN,
                      DeliveryState.PUBLISHED)
                  .contains(kit.find(request.key()).orElseThrow().state()),
              "held: " + kit.find(request.key()));
        }
      }

      for (PublicationRequested request : sickRequests) {
        kit.awaitState(request.key(), DeliveryState.PUBLISHED);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> breakerState(consumer, "sick") == 0.0);
      for (PublicationRequested request : sickRequests) {
        assertEquals(
            1, sick.simulator().articleCount(request.idempotencyKey()), request.key().toString());
      }
      for (PublicationRequested request : healthyRequests) {
        assertEquals(1, healthy.simulator().articleCount(request.idempotencyKey()));
      }
      assertTrue(openedTotal(consumer, "sick") >= 1);
      assertEquals(0.0, breakerState(consumer, "healthy"));
      assertEquals(0L, openedTotal(consumer, "healthy"));
      System.out.printf(
          "breaker storm: %d faults, breaker opened %d times, %d requests for %d sick deliveries,"
              + " healthy published while open: %s%n",
          STORM, openedTotal(consumer, "sick"), requests(sick, sickRequests), SICK, stillOpen);
    }
  }

  @Test
  void shouldHoldAPausedDestinationAcrossARestartAndReleaseItsDeliveriesOnResume(StackContext stack)
      throws Exception {
    try (TestKit kit = new TestKit(stack, "breaker-pause", 2)) {
      TestKit.Destination held = kit.destination("held", Behaviour.cooperative());
      TestKit.Destination free = kit.destination("free", Behaviour.cooperative());
      Map<String, String> properties = kit.properties("breaker-pause", held, free);
      HeraldConsumer first = kit.start(properties);

      JsonNode paused =
          post(first, "/v1/destinations/held/pause", "alice", "vendor maintenance until 18:00");
      assertTrue(paused.get("paused").asBoolean(), paused.toString());
      assertEquals("alice", paused.get("pause").get("actor").asText());
      List<PublicationRequested> waiting = send(kit, "held", 4);
      for (PublicationRequested request : send(kit, "free", 3)) {
        kit.awaitState(request.key(), DeliveryState.PUBLISHED);
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> waiting.stream().allMatch(r -> kit.find(r.key()).isPresent()));
      first.close();

      HeraldConsumer second = kit.start(properties);
      for (PublicationRequested request : send(kit, "free", 3)) {
        kit.awaitState(request.key(), DeliveryState.PUBLISHED);
      }
      // Restarted, the pause still holds: nothing was claimed or sent at the paused destination.
      assertEquals(0, requests(held, waiting));
      for (PublicationRequested request : waiting) {
        assertEquals(DeliveryState.PENDING, kit.find(request.key()).orElseThrow().state());
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> gauge(second, "paused", "held") == 1.0);
      assertEquals(0.0, gauge(second, "paused", "free"));
      JsonNode status = destination(get(second, "/v1/destinations"), "held");
      assertTrue(status.get("paused").asBoolean(), status.toString());
      assertEquals("vendor maintenance until 18:00", status.get("pause").get("reason").asText());
      assertEquals(waiting.size(), status.get("waiting").asLong());
      assertEquals("CLOSED", status.get("breaker").asText());

      JsonNode resumed = post(second, "/v1/destinations/held/resume", "bob", "vendor is back");
      assertEquals(false, resumed.get("paused").asBoolean());
      for (PublicationRequested request : waiting) {
        kit.awaitState(request.key(), DeliveryState.PUBLISHED);
        assertEquals(1, held.simulator().articleCount(request.idempotencyKey()));
      }
      assertEquals(0.0, gauge(second, "paused", "held"));
      assertEquals(
          List.of("f|bob|vendor is back"),
          kit.query(
              "SELECT CASE WHEN paused THEN 't' ELSE 'f' END || '|' || actor || '|' || reason"
                  + " FROM consumer.destination_pause WHERE destination = 'held'"));
    }
  }

  /**
   * With the breaker opening on the way (3 failures, 1s), the attempt bound still decides the end:
   * a destination whose every answer was a definite 503 ends FAILED; one whose first answer was an
   * uncertain 500 ends NEEDS_RECONCILIATION, since that attempt may have created the article.
   * (Without a breaker: {@code DeliveryPolicyTest} and {@code DispatcherTest}.)
   */
  @Test
  void shouldEndFailedWhereEveryOutcomeWasDefiniteAndNeedReconciliationWhereOneWasUncertain(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "breaker-exhausted", 1)) {
      TestKit.Destination definite = kit.destination("definite", Behaviour.cooperative());
      TestKit.Destination unsure = kit.destination("unsure", Behaviour.cooperative());
      Map<String, String> properties = kit.properties("breaker-exhausted", definite, unsure);
      for (String name : List.of("definite", "unsure")) {
        properties.put("consumer.destinations." + name + ".breaker.failures", "3");
        properties.put("consumer.destinations." + name + ".breaker.open-for", "1s");
      }
      // The kit's max-attempts is 5: every attempt fails.
      definite.simulator().failNext(new Fault.Status(503), 5);
      unsure.simulator().failNext(new Fault.Status(500));
      unsure.simulator().failNext(new Fault.Status(503), 4);
      HeraldConsumer consumer = kit.start(properties);

      PublicationRequested toDefinite = send(kit, "definite", 1).getFirst();
      PublicationRequested toUnsure = send(kit, "unsure", 1).getFirst();

      DeliveryView failed = kit.awaitState(toDefinite.key(), DeliveryState.FAILED);
      DeliveryView parked = kit.awaitState(toUnsure.key(), DeliveryState.NEEDS_RECONCILIATION);
      assertEquals(5, failed.attempts());
      assertEquals(5, parked.attempts());
      assertEquals(0, definite.simulator().articleCount(toDefinite.idempotencyKey()));
      assertTrue(openedTotal(consumer, "definite") >= 1, "the breaker opened on the way");
    }
  }

  private static List<PublicationRequested> send(TestKit kit, String destination, int count) {
    List<PublicationRequested> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      PublicationRequested request =
          TestKit.request(
              new PublicationKey(
                  "t1", "a-" + destination + "-" + System.nanoTime() + "-" + i, "r-1", destination),
              "Article " + i);
      kit.send(request);
      requests.add(request);
    }
    return requests;
  }

  private static int requests(TestKit.Destination destination, List<PublicationRequested> sent) {
    return sent.stream()
        .mapToInt(r -> destination.simulator().createRequests(r.idempotencyKey()))
        .sum();
  }

  private static double breakerState(HeraldConsumer consumer, String destination) {
    return gauge(consumer, "breaker.state", destination);
  }

  private static double gauge(HeraldConsumer consumer, String name, String destination) {
    Gauge gauge =
        consumer
            .metrics()
            .registry()
            .find("herald.consumer.destination." + name)
            .tag("destination", destination)
            .gauge();
    return gauge == null ? Double.NaN : gauge.value();
  }

  private static long openedTotal(HeraldConsumer consumer, String destination) {
    return (long)
        consumer
            .metrics()
            .registry()
            .find("herald.consumer.destination.breaker.opened")
            .tag("destination", destination)
            .functionCounter()
            .count();
  }

  private JsonNode post(HeraldConsumer consumer, String path, String actor, String reason)
      throws IOException, InterruptedException {
    String body = Json.mapper().writeValueAsString(Map.of("actor", actor, "reason", reason));
    HttpResponse<String> response =
        http.send(
            request(consumer, path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    return Json.mapper().readTree(response.body());
  }

  private JsonNode get(HeraldConsumer consumer, String path)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(request(consumer, path).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    return Json.mapper().readTree(response.body());
  }

  private static HttpRequest.Builder request(HeraldConsumer consumer, String path) {
    return HttpRequest.newBuilder(URI.create(consumer.opsUri() + path))
        .timeout(Duration.ofSeconds(15))
        .header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "application/json");
  }

  private static JsonNode destination(JsonNode list, String name) {
    for (JsonNode node : list) {
      if (node.get("name").asText().equals(name)) {
        return node;
      }
    }
    throw new AssertionError("no destination " + name + " in " + list);
  }
}
