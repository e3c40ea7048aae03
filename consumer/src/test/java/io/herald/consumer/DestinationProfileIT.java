package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Destination profiles against real PostgreSQL, Kafka and the simulator playing each profile: a
 * destination that forgets keys after its window never gets a blind resend past it (issue 17 item
 * 3), a 409 that means "exists" publishes with the remote id, a replayed error goes to an operator,
 * and a 429's Retry-After is waited.
 *
 * <p>The window scenario: the first attempt is accepted but its answer is lost (uncertain), the
 * resend inside the window is throttled with {@code Retry-After} longer than the window, so the
 * next claim comes after the destination has forgotten the key; sending then would create a second
 * article.
 */
@HeraldIntegrationTest
class DestinationProfileIT {

  /** The simulator's key window and the profile's dedup window. */
  private static final Duration WINDOW = Duration.ofSeconds(4);

  /** Longer than the window: the retry it delays comes after the key is forgotten. */
  private static final Duration RETRY_AFTER = Duration.ofSeconds(5);

  /**
   * Longer than the test kit's read timeout (1s): the client sees a timeout, the article exists.
   */
  private static final Duration STALL = Duration.ofSeconds(2);

  @Test
  void shouldNeedReconciliationNotResendWhenARetryComesPastTheWindowOfAKeyOnlyDestination(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "window-key", 1)) {
      TestKit.Destination destination =
          kit.destination(
              "forget-key", Behaviour.cooperative().withLookup(false).withKeyWindow(WINDOW));
      PublicationKey key = new PublicationKey("t1", "a-window-key", "r-1", "forget-key");
      PublicationRequested request = TestKit.request(key, "Forgotten key");
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      destination.simulator().failNext(new Fault.RateLimited(RETRY_AFTER));
      HeraldConsumer consumer = kit.start(windowed(kit, stack, "window-key", destination));

      kit.send(request);

      DeliveryView held = kit.awaitState(key, DeliveryState.NEEDS_RECONCILIATION);
      // The budget: the destination's one unsettled delivery, its first attempt past the window.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  budget(consumer, "forget-key", "herald.consumer.destination.unsettled") == 1.0
                      && budget(
                              consumer,
                              "forget-key",
                              "herald.consumer.destination.unsettled.oldest.age.seconds")
                          >= WINDOW.toSeconds());
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertTrue(
          destination.simulator().createRequests(request.idempotencyKey()) <= 2,
          "a request after the 429: "
              + destination.simulator().createRequests(request.idempotencyKey()));
      assertRetryAfterWaited(kit, held);
    }
  }

  @Test
  void shouldLookUpNotResendWhenARetryComesPastTheWindowOfADestinationWithLookup(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "window-lookup", 1)) {
      TestKit.Destination destination =
          kit.destination("forget-lookup", Behaviour.cooperative().withKeyWindow(WINDOW));
      PublicationKey key = new PublicationKey("t1", "a-window-lookup", "r-1", "forget-lookup");
      PublicationRequested request = TestKit.request(key, "Forgotten key, found");
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      destination.simulator().failNext(new Fault.RateLimited(RETRY_AFTER));
      kit.start(windowed(kit, stack, "window-lookup", destination));

      kit.send(request);

      DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(
          destination
              .simulator()
              .findByExternalReference(request.idempotencyKey())
              .orElseThrow()
              .remoteId(),
          published.remoteId());
      assertTrue(destination.simulator().createRequests(request.idempotencyKey()) <= 2);
      assertTrue(
          kit.query(
                  "SELECT kind || ':' || outcome FROM consumer.delivery_attempt"
                      + " WHERE delivery_id = ? ORDER BY claim_token",
                  published.id())
              .contains("LOOKUP:found"));
      assertRetryAfterWaited(kit, published);
    }
  }

  @Test
  void shouldPublishWithTheRemoteIdWhenA409SaysTheKeysArticleExists(StackContext stack)
      throws Exception {
    try (TestKit kit = new TestKit(stack, "conflict-exists", 1)) {
      TestKit.Destination destination =
          kit.destination(
              "exists-dest",
              Behaviour.cooperative()
                  .withLookup(false)
                  .withRepeat(Behaviour.Repeat.CONFLICT_EXISTS));
      PublicationKey key = new PublicationKey("t1", "a-exists", "r-1", "exists-dest");
      PublicationRequested request = TestKit.request(key, "Exists");
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      Map<String, String> properties = kit.properties(stack.groupId("exists"), destination);
      properties.put("consumer.destinations.exists-dest.profile", "checkout-like");
      HeraldConsumer consumer = kit.start(properties);

      kit.send(request);

      DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
      assertEquals(
          destination
              .simulator()
              .findByExternalReference(request.idempotencyKey())
              .orElseThrow()
              .remoteId(),
          published.remoteId());
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(
          List.of("uncertain:", "published:409"),
          kit.query(
              "SELECT outcome || ':' || COALESCE(http_status::text, '')"
                  + " FROM consumer.delivery_attempt WHERE delivery_id = ? ORDER BY claim_token",
              published.id()));
      // The tier its profile allows, where operators look.
      String tier =
          "exists-dest: exactly-once in effect (key Idempotency-Key, window 1d, then operator)";
      assertTrue(get(consumer.opsUri() + "/health").contains(tier));
      assertTrue(
          get(consumer.opsUri() + "/metrics")
              .contains(
                  "herald_consumer_destination_info{destination=\"exists-dest\","
                      + "guarantee=\"exactly-once in effect (key Idempotency-Key, window 1d, then"
                      + " operator)\""));
    }
  }

  @Test
  void shouldNeedReconciliationWhenTheDestinationReplaysTheSavedErrorOfTheKey(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "replayed", 1)) {
      TestKit.Destination destination =
          kit.destination(
              "replay-dest",
              Behaviour.cooperative()
                  .withLookup(false)
                  .withErrorReplay(true)
                  .withReplayMarker("Idempotent-Replayed"));
      PublicationKey key = new PublicationKey("t1", "a-replayed", "r-1", "replay-dest");
      PublicationRequested request = TestKit.request(key, "Replayed");
      destination.simulator().failNext(new Fault.Status(500));
      Map<String, String> properties = kit.properties(stack.groupId("replayed"), destination);
      properties.put("consumer.destinations.replay-dest.profile", "stripe-like");
      kit.start(properties);

      kit.send(request);

      DeliveryView held = kit.awaitState(key, DeliveryState.NEEDS_RECONCILIATION);
      assertEquals(0, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(2, destination.simulator().createRequests(request.idempotencyKey()));
      assertEquals(
          List.of("uncertain", "replayed-error"),
          kit.query(
              "SELECT outcome FROM consumer.delivery_attempt WHERE delivery_id = ?"
                  + " ORDER BY claim_token",
              held.id()));
    }
  }

  private static String get(String uri) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
              HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(15)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  private static double budget(HeraldConsumer consumer, String destination, String gauge) {
    return consumer
        .metrics()
        .registry()
        .get(gauge)
        .tag("destination", destination)
        .tag("state", DeliveryState.NEEDS_RECONCILIATION.name())
        .gauge()
        .value();
  }

  /** The test kit's settings with the short window, and a backoff cap above the Retry-After. */
  private static Map<String, String> windowed(
      TestKit kit, StackContext stack, String group, TestKit.Destination destination) {
    Map<String, String> properties = kit.properties(stack.groupId(group), destination);
    properties.put(
        "consumer.destinations." + destination.name() + ".dedup-window", WINDOW.toMillis() + "ms");
    properties.put("consumer.dispatch.backoff-max", "10s");
    return properties;
  }

  /**
   * When the 429 was answered, the next claim came no earlier than its Retry-After (database time
   * on both sides: the 429's recording set the due time, the next attempt's row starts at or after
   * it). Without a 429 (the reconciler saw the window pass first) there is nothing to check.
   */
  private static void assertRetryAfterWaited(TestKit kit, DeliveryView delivery) {
    List<String> gaps =
        kit.query(
            "SELECT extract(epoch FROM n.started_at - a.ended_at)::text"
                + " FROM consumer.delivery_attempt a JOIN consumer.delivery_attempt n"
                + " ON n.delivery_id = a.delivery_id AND n.claim_token > a.claim_token"
                + " WHERE a.delivery_id = ? AND a.http_status = 429"
                + " ORDER BY n.claim_token LIMIT 1",
            delivery.id());
    System.out.println("Retry-After " + RETRY_AFTER + ", next attempt after the 429 (s): " + gaps);
    for (String gap : gaps) {
      assertTrue(
          Double.parseDouble(gap) >= RETRY_AFTER.toSeconds(),
          "the next attempt came " + gap + "s after the 429");
    }
  }
}
