package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.PublicationKey;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.retention.RetentionPurger;
import io.herald.consumer.retention.RetentionSettings;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Health, metrics, graceful shutdown, retention and the operator API. */
@HeraldIntegrationTest
class ConsumerOperationsIT {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldReportHealthAndDeliveryMetrics(StackContext stack) throws Exception {
    try (TestKit kit = new TestKit(stack, "ops", 1)) {
      TestKit.Destination destination = kit.destination("ops-dest", Behaviour.cooperative());
      PublicationKey key = new PublicationKey("t1", "a-ops", "r-1", "ops-dest");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("ops"), destination));
      kit.send(TestKit.request(key, "Ops"));
      kit.awaitState(key, DeliveryState.PUBLISHED);

      HttpResponse<String> health = get(consumer.opsUri() + "/health", null);
      assertEquals(200, health.statusCode(), health.body());
      for (String check : List.of("database", "listener", "dispatcher", "reconciler")) {
        assertTrue(health.body().contains("\"" + check + "\""), health.body());
      }
      // The per-state gauges are refreshed by each reconciliation round (200 ms here).
      Pattern published =
          Pattern.compile("herald_consumer_deliveries\\{[^}]*state=\"PUBLISHED\"[^}]*\\} [1-9]");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> published.matcher(get(consumer.opsUri() + "/metrics", null).body()).find());
      String metrics = get(consumer.opsUri() + "/metrics", null).body();
      assertTrue(
          Pattern.compile("herald_consumer_dispatch_seconds_count\\{[^}]*destination=\"ops-dest\"")
              .matcher(metrics)
              .find(),
          metrics);
      assertTrue(metrics.contains("herald_consumer_records_total"), metrics);
      assertTrue(metrics.contains("kafka_consumer_fetch_manager_records_lag_max"), metrics);
    }
  }

  @Test
  void shouldRecordAnInFlightDispatchBeforeAGracefulStopCompletes(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "graceful", 1)) {
      TestKit.Destination destination =
          kit.destination("graceful-dest", Behaviour.bare().withLatency(Duration.ofMillis(800)));
      PublicationKey key = new PublicationKey("t1", "a-graceful", "r-1", "graceful-dest");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("graceful"), destination));
      kit.send(TestKit.request(key, "Graceful"));
      kit.awaitState(key, DeliveryState.DISPATCHING);

      consumer.close();

      DeliveryView view = kit.find(key).orElseThrow();
      assertEquals(DeliveryState.PUBLISHED, view.state());
      assertEquals(1, destination.simulator().articles().size());
    }
  }

  @Test
  void shouldPurgeOldInboxRowsFinishedDeliveriesAndStatusEventsButKeepOpenWork(StackContext stack)
      throws Exception {
    try (TestKit kit = new TestKit(stack, "purge", 1)) {
      TestKit.Destination destination = kit.destination("purge-dest", Behaviour.bare());
      destination.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)));
      PublicationKey open = new PublicationKey("t1", "a-purge-open", "r-1", "purge-dest");
      PublicationKey done = new PublicationKey("t1", "a-purge-done", "r-1", "purge-dest");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("purge"), destination));
      kit.send(TestKit.request(open, "Stays"));
      DeliveryView parked = kit.awaitState(open, DeliveryState.NEEDS_RECONCILIATION);
      kit.send(TestKit.request(done, "Goes"));
      DeliveryView published = kit.awaitState(done, DeliveryState.PUBLISHED);
      consumer.close();
      kit.update("UPDATE consumer.inbox SET received_at = now() - interval '2 hours'");
      kit.update("UPDATE consumer.delivery SET updated_at = now() - interval '2 hours'");
      kit.update("UPDATE consumer.outbox SET occurred_at = now() - interval '2 hours'");
      RetentionPurger purger =
          new RetentionPurger(
              stack.dataSource(),
              new RetentionSettings(
                  Duration.ofHours(1),
                  Duration.ofHours(1),
                  Duration.ofHours(1),
                  Duration.ofMinutes(1),
                  1),
              new ConsumerMetrics(new SimpleMeterRegistry()));

      purger.purgeOnce();

      assertEquals(List.of("0"), kit.query("SELECT count(*) FROM consumer.inbox"));
      assertEquals(List.of("0"), kit.query("SELECT count(*) FROM consumer.outbox"));
      assertEquals(
          List.of(parked.id().toString()),
          kit.query("SELECT id::text FROM consumer.delivery WHERE article_id LIKE 'a-purge-%'"));
      assertTrue(kit.find(done).isEmpty(), published.toString());
    }
  }

  @Test
  void shouldRefuseOperatorRequestsWithoutTokenOrInTheWrongState(StackContext stack)
      throws Exception {
    try (TestKit kit = new TestKit(stack, "operator", 1)) {
      TestKit.Destination destination = kit.destination("operator-dest", Behaviour.bare());
      destination.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)));
      PublicationKey parkedKey = new PublicationKey("t1", "a-op-1", "r-1", "operator-dest");
      PublicationKey publishedKey = new PublicationKey("t1", "a-op-2", "r-1", "operator-dest");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("operator"), destination));
      kit.send(TestKit.request(parkedKey, "Parked"));
      DeliveryView parked = kit.awaitState(parkedKey, DeliveryState.NEEDS_RECONCILIATION);
      kit.send(TestKit.request(publishedKey, "Published"));
      DeliveryView published = kit.awaitState(publishedKey, DeliveryState.PUBLISHED);
      String base = consumer.opsUri() + "/v1/deliveries";

      assertEquals(401, get(base, null).statusCode());
      HttpResponse<String> list = get(base + "?state=NEEDS_RECONCILIATION", "op-token");
      assertEquals(200, list.statusCode());
      assertTrue(list.body().contains(parked.id().toString()), list.body());
      assertEquals(404, get(base + "/" + UUID.randomUUID(), "op-token").statusCode());
      HttpResponse<String> wrongState =
          post(
              base + "/" + published.id() + "/actions",
              "{\"action\":\"RETRY\",\"actor\":\"eve\",\"reason\":\"why not\"}");
      assertEquals(409, wrongState.statusCode(), wrongState.body());
      assertEquals(
          400,
          post(base + "/" + parked.id() + "/actions", "{\"action\":\"ABANDON\",\"actor\":\"eve\"}")
              .statusCode());
      assertEquals(published, kit.find(publishedKey).orElseThrow());
      assertEquals(
          List.of("0"),
          kit.query("SELECT count(*) FROM consumer.operator_action WHERE actor = 'eve'"));
      // The parked delivery ages on the gauge the alerts watch; UNCERTAIN has none, so 0.
      Pattern parkedAge =
          Pattern.compile(
              "herald_consumer_oldest_unsettled_age_seconds\\{[^}]*state=\"NEEDS_RECONCILIATION\""
                  + "[^}]*\\} [1-9]");
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> parkedAge.matcher(get(consumer.opsUri() + "/metrics", null).body()).find());
      assertTrue(
          Pattern.compile(
                  "herald_consumer_oldest_unsettled_age_seconds\\{[^}]*state=\"UNCERTAIN\"[^}]*\\}"
                      + " 0(\\.0)?\\s")
              .matcher(get(consumer.opsUri() + "/metrics", null).body())
              .find());
    }
  }

  private HttpResponse<String> get(String uri, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String uri, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri))
            .header("Authorization", "Bearer op-token")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
