package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The seed's test plan, literally, against real PostgreSQL, Kafka and the simulator over HTTP. */
@HeraldIntegrationTest
class IdempotentPublishingIT {

  private static final Duration STALL = Duration.ofSeconds(3);

  @Test
  void shouldCreateOneDeliveryAndOneRemoteArticleWhenTwoRequestsWithTheSameKeyAndPayloadRace(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "race", 1)) {
      // A destination without idempotency or lookup: only Herald's own guarantees stand between
      // the two requests and two articles.
      TestKit.Destination destination = kit.destination("race-dest", Behaviour.bare());
      PublicationKey key = new PublicationKey("t1", "a-race", "r-1", "race-dest");
      PublicationRequested request = TestKit.request(key, "Race");
      // Two consumer groups both read every record: both instances handle both requests at once.
      HeraldConsumer first = kit.start(kit.properties(stack.groupId("race-a"), destination));
      HeraldConsumer second = kit.start(kit.properties(stack.groupId("race-b"), destination));

      kit.send(request);
      kit.send(request);

      DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
      await().atMost(Duration.ofSeconds(30)).until(() -> records(first) + records(second) == 4);
      assertEquals(1, created(first) + created(second));
      assertEquals(
          List.of("1"),
          kit.query(
              "SELECT count(*) FROM consumer.delivery WHERE tenant_id = ? AND article_id = ?",
              "t1",
              "a-race"));
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(1, destination.simulator().createRequests(request.idempotencyKey()));
      assertEquals(
          destination
              .simulator()
              .findByExternalReference(request.idempotencyKey())
              .orElseThrow()
              .remoteId(),
          published.remoteId());
    }
  }

  @Test
  void shouldRefuseTheSameKeyWithAnotherPayloadAndLeaveTheExistingDeliveryUnchanged(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "conflict", 1)) {
      TestKit.Destination destination = kit.destination("conflict-dest", Behaviour.cooperative());
      PublicationKey key = new PublicationKey("t1", "a-conflict", "r-1", "conflict-dest");
      PublicationRequested original = TestKit.request(key, "Original");
      PublicationRequested changed = TestKit.request(key, "Changed behind our back");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("conflict"), destination));
      kit.send(original);
      DeliveryView before = kit.awaitState(key, DeliveryState.PUBLISHED);

      kit.send(changed);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> kit.events(before.id()).contains("PublicationConflict:CONFLICT"));
      DeliveryView after = kit.find(key).orElseThrow();
      assertEquals(before, after);
      assertEquals(original.payloadHash(), after.payloadHash());
      assertEquals(1, destination.simulator().articleCount(original.idempotencyKey()));
      // The alert metric follows the commit of the batch (and of its offsets).
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  consumer
                          .metrics()
                          .count("herald.consumer.conflicts", "destination", "conflict-dest")
                      == 1.0);
      assertEquals(
          List.of(changed.jobId().toString()),
          kit.query(
              "SELECT payload->>'jobId' FROM consumer.outbox WHERE event_type = 'PublicationConflict'"
                  + " AND payload->>'deliveryId' = ?",
              before.id().toString()));
    }
  }

  @Test
  void shouldLeaveOneRemoteArticleWhenAnIdempotentDestinationAcceptsAndTheClientTimesOut(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "idem-timeout", 1)) {
      TestKit.Destination destination =
          kit.destination("idem-dest", Behaviour.cooperative().withLookup(false));
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      PublicationKey key = new PublicationKey("t1", "a-idem", "r-1", "idem-dest");
      PublicationRequested request = TestKit.request(key, "Timeout");
      kit.start(kit.properties(stack.groupId("idem"), destination));

      kit.send(request);

      DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
      Article article =
          destination.simulator().findByExternalReference(request.idempotencyKey()).orElseThrow();
      assertEquals(article.remoteId(), published.remoteId());
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(2, destination.simulator().createRequests(request.idempotencyKey()));
      assertEquals(
          List.of(
              "PublicationUncertain:UNCERTAIN",
              "PublicationRetrying:PENDING",
              "PublicationPublished:PUBLISHED"),
          kit.events(published.id()));
    }
  }

  @Test
  void shouldNeedReconciliationAndNotSendAgainWhenTheDestinationHasNeitherIdempotencyNorLookup(
      StackContext stack) throws Exception {
    try (TestKit kit = new TestKit(stack, "bare-timeout", 1)) {
      TestKit.Destination destination = kit.destination("bare-dest", Behaviour.bare());
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      PublicationKey key = new PublicationKey("t1", "a-bare", "r-1", "bare-dest");
      PublicationRequested request = TestKit.request(key, "Timeout");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("bare"), destination));

      kit.send(request);

      DeliveryView parked = kit.awaitState(key, DeliveryState.NEEDS_RECONCILIATION);
      // Many reconciliation rounds (200 ms apart) pass: the request is never sent again.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  destination.simulator().createRequests(request.idempotencyKey()) == 1
                      && kit.find(key).orElseThrow().state() == DeliveryState.NEEDS_RECONCILIATION);
      assertEquals(
          List.of(
              "PublicationUncertain:UNCERTAIN",
              "PublicationNeedsReconciliation:NEEDS_RECONCILIATION"),
          kit.events(parked.id()));

      // The operator checks the destination and records what they found, through the ops API.
      String remoteId =
          destination
              .simulator()
              .findByExternalReference(request.idempotencyKey())
              .orElseThrow()
              .remoteId();
      HttpResponse<String> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              consumer.opsUri() + "/v1/deliveries/" + parked.id() + "/actions"))
                      .header("Authorization", "Bearer op-token")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"action\":\"MARK_PUBLISHED\",\"actor\":\"alice\",\"remoteId\":\""
                                  + remoteId
                                  + "\",\"reason\":\"found in the vendor console\"}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, answer.statusCode(), answer.body());
      DeliveryView published = kit.find(key).orElseThrow();
      assertEquals(DeliveryState.PUBLISHED, published.state());
      assertEquals(remoteId, published.remoteId());
      assertEquals(
          List.of(
              "MARK_PUBLISHED|alice|found in the vendor console|NEEDS_RECONCILIATION|PUBLISHED|"
                  + remoteId),
          kit.query(
              "SELECT action || '|' || actor || '|' || reason || '|' || from_state || '|' || to_state"
                  + " || '|' || remote_id FROM consumer.operator_action WHERE delivery_id = ?",
              parked.id()));
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
    }
  }

  @Test
  void shouldPublishWithTheFoundRemoteIdWhenTheLookupFindsTheUncertainArticle(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "lookup-found", 1)) {
      TestKit.Destination destination =
          kit.destination("lookup-dest", Behaviour.bare().withLookup(true));
      destination.simulator().failNext(new Fault.StallAfterAccept(STALL));
      PublicationKey key = new PublicationKey("t1", "a-lookup", "r-1", "lookup-dest");
      PublicationRequested request = TestKit.request(key, "Lookup");
      kit.start(kit.properties(stack.groupId("lookup"), destination));

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
      assertEquals(1, destination.simulator().createRequests(request.idempotencyKey()));
      assertEquals(
          List.of("PublicationUncertain:UNCERTAIN", "PublicationPublished:PUBLISHED"),
          kit.events(published.id()));
    }
  }

  @Test
  void shouldRetrySafelyWhenTheLookupFindsNothingAfterTheGracePeriod(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "lookup-missing", 1)) {
      TestKit.Destination destination =
          kit.destination("missing-dest", Behaviour.bare().withLookup(true));
      destination.simulator().failNext(new Fault.StallWithoutAccepting(STALL));
      PublicationKey key = new PublicationKey("t1", "a-missing", "r-1", "missing-dest");
      PublicationRequested request = TestKit.request(key, "Missing");
      kit.start(kit.properties(stack.groupId("missing"), destination));

      kit.send(request);

      DeliveryView published = kit.awaitState(key, DeliveryState.PUBLISHED);
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
      assertEquals(2, destination.simulator().createRequests(request.idempotencyKey()));
      assertEquals(
          List.of(
              "PublicationUncertain:UNCERTAIN",
              "PublicationRetrying:PENDING",
              "PublicationPublished:PUBLISHED"),
          kit.events(published.id()));
    }
  }

  @Test
  void shouldCreateTheirOwnRemoteArticlesForANewRevisionAndAnotherDestination(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "legit", 2)) {
      TestKit.Destination a = kit.destination("legit-a", Behaviour.bare());
      TestKit.Destination b = kit.destination("legit-b", Behaviour.bare());
      PublicationKey rev3a = new PublicationKey("t1", "a-84", "r-3", "legit-a");
      PublicationKey rev4a = new PublicationKey("t1", "a-84", "r-4", "legit-a");
      PublicationKey rev3b = new PublicationKey("t1", "a-84", "r-3", "legit-b");
      kit.start(kit.properties(stack.groupId("legit"), a, b));

      kit.send(TestKit.request(rev3a, "Article 84"));
      kit.send(TestKit.request(rev4a, "Article 84, revised"));
      kit.send(TestKit.request(rev3b, "Article 84"));

      Set<String> remoteIds =
          List.of(rev3a, rev4a, rev3b).stream()
              .map(key -> kit.awaitState(key, DeliveryState.PUBLISHED))
              .map(view -> view.destination() + "/" + view.remoteId())
              .collect(Collectors.toSet());
      assertEquals(3, remoteIds.size());
      assertNotEquals(rev3a.idempotencyKey(), rev4a.idempotencyKey());
      assertNotEquals(rev3a.idempotencyKey(), rev3b.idempotencyKey());
      assertEquals(2, a.simulator().articles().size());
      assertEquals(1, b.simulator().articles().size());
      for (PublicationKey key : List.of(rev3a, rev4a)) {
        assertEquals(1, a.simulator().articleCount(key.idempotencyKey()));
      }
      assertEquals(1, b.simulator().articleCount(rev3b.idempotencyKey()));
    }
  }

  private static double records(HeraldConsumer consumer) {
    return created(consumer)
        + consumer.metrics().count("herald.consumer.records", "result", "duplicate")
        + consumer.metrics().count("herald.consumer.records", "result", "redelivered");
  }

  private static double created(HeraldConsumer consumer) {
    return consumer.metrics().count("herald.consumer.records", "result", "created");
  }
}
