package io.herald.consumer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.reconcile.OperatorActions;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/** Redelivery, rebalances, ordering, poison records and the status-event contract. */
@HeraldIntegrationTest
class ConsumerRobustnessIT {

  @Test
  void shouldCreateOneDeliveryWhenTheSameKafkaRecordIsDeliveredTwice(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "twice", 1)) {
      TestKit.Destination destination = kit.destination("twice-dest", Behaviour.bare());
      PublicationKey key = new PublicationKey("t1", "a-twice", "r-1", "twice-dest");
      PublicationRequested request = TestKit.request(key, "Twice");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("twice"), destination));
      UUID eventId = UUID.randomUUID();

      kit.send(request, eventId);
      kit.send(request, eventId);

      kit.awaitState(key, DeliveryState.PUBLISHED);
      await().atMost(Duration.ofSeconds(30)).until(() -> count(consumer, "redelivered") == 1);
      assertEquals(1, count(consumer, "created"));
      assertEquals(
          List.of("1"),
          kit.query("SELECT count(*) FROM consumer.inbox WHERE message_id = ?", eventId));
      assertEquals(1, destination.simulator().articleCount(request.idempotencyKey()));
    }
  }

  @Test
  void shouldParkADeliveryForAnUnconfiguredDestinationVisiblyAndSendItAfterAnOperatorRetry(
      StackContext stack) throws Exception {
    try (TestKit kit = new TestKit(stack, "unknown", 1)) {
      TestKit.Destination known = kit.destination("dest-a", Behaviour.bare());
      // A new user's typo: dest-A for dest-a. Destinations are compared exactly.
      PublicationKey key = new PublicationKey("t1", "a-unknown", "r-1", "dest-A");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("unknown"), known));

      kit.send(TestKit.request(key, "Typo"));

      DeliveryView parked = kit.awaitState(key, DeliveryState.UNKNOWN_DESTINATION);
      // Announced in the intake's transaction, so the writer's view shows it, not REQUESTED.
      assertEquals(
          List.of("PublicationUnknownDestination:UNKNOWN_DESTINATION"), kit.events(parked.id()));
      assertEquals(
          1.0,
          consumer.metrics().count("herald.consumer.unknown.destination", "destination", "dest-A"));
      assertEquals(
          List.of(
              "destination 'dest-A' is not configured at this consumer (no"
                  + " consumer.destinations.dest-A.*; configured: dest-a): not sent; configure it"
                  + " and retry the delivery, or abandon it"),
          kit.query("SELECT last_error FROM consumer.delivery WHERE id = ?", parked.id()));
      // Never claimed, however many dispatch rounds (50 ms apart) pass.
      await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(5))
          .until(() -> kit.find(key).orElseThrow().state() == DeliveryState.UNKNOWN_DESTINATION);
      assertEquals(0, known.simulator().articles().size());
      // A retry where dest-A is still not configured would only wait PENDING unseen: refused.
      assertInstanceOf(
          OperatorActions.Result.NotAllowed.class,
          consumer.operatorActions().retry(parked.id(), "alice", "too early"));
      assertEquals(DeliveryState.UNKNOWN_DESTINATION, kit.find(key).orElseThrow().state());

      // The operator configures dest-A (an instance that knows it) and retries the delivery.
      TestKit.Destination configured = kit.destination("dest-A", Behaviour.bare());
      HeraldConsumer fixed =
          kit.start(kit.properties(stack.groupId("unknown-fixed"), known, configured));
      OperatorActions.Result retried =
          fixed.operatorActions().retry(parked.id(), "alice", "configured dest-A");

      assertEquals(
          DeliveryState.PENDING,
          assertInstanceOf(OperatorActions.Result.Applied.class, retried).to());
      kit.awaitState(key, DeliveryState.PUBLISHED);
      assertEquals(1, configured.simulator().articles().size());
      assertEquals(
          List.of(
              "PublicationUnknownDestination:UNKNOWN_DESTINATION",
              "PublicationRetrying:PENDING",
              "PublicationPublished:PUBLISHED"),
          kit.events(parked.id()));
    }
  }

  @Test
  void shouldPublishEveryIntentOnceWhenInstancesRaceThroughRebalancesAndRedeliveries(
      StackContext stack) {
    try (TestKit kit = new TestKit(stack, "rebalance", 4)) {
      // Non-idempotent and slow: a double dispatch would show as a second article.
      TestKit.Destination destination =
          kit.destination("rebalance-dest", Behaviour.bare().withLatency(Duration.ofMillis(20)));
      String group = stack.groupId("rebalance");
      List<PublicationRequested> requests = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        requests.add(
            TestKit.request(
                new PublicationKey("t1", "a-rb-" + i, "r-1", "rebalance-dest"), "Article " + i));
      }
      HeraldConsumer first = kit.start(kit.properties(group, destination));
      for (int i = 0; i < 20; i++) {
        kit.send(requests.get(i));
      }
      // A second member joins mid-stream (rebalance), and an instance of another group re-reads
      // every record from the start: both race the first on the inbox and on the claims.
      HeraldConsumer second = kit.start(kit.properties(group, destination));
      HeraldConsumer rereader =
          kit.start(kit.properties(stack.groupId("rebalance-re"), destination));
      for (int i = 20; i < 40; i++) {
        kit.send(requests.get(i));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  kit.query(
                          "SELECT count(*) FROM consumer.delivery WHERE destination = ?"
                              + " AND state = 'PUBLISHED'",
                          "rebalance-dest")
                      .equals(List.of("40")));
      first.close(); // and once more: the remaining members take its partitions over

      for (PublicationRequested request : requests) {
        assertEquals(
            1,
            destination.simulator().articleCount(request.idempotencyKey()),
            request.key().toString());
        assertEquals(1, destination.simulator().createRequests(request.idempotencyKey()));
      }
      assertEquals(40, destination.simulator().articles().size());
      assertEquals(
          40, count(first, "created") + count(second, "created") + count(rereader, "created"));
      assertTrue(
          count(rereader, "redelivered")
                  + count(first, "redelivered")
                  + count(second, "redelivered")
              >= 1);
    }
  }

  @Test
  void shouldPublishRevisionsInCommitOrderEvenWhenTheFirstNeedsRetries(StackContext stack)
      throws Exception {
    try (TestKit kit = new TestKit(stack, "order", 1)) {
      TestKit.Destination destination = kit.destination("order-dest", Behaviour.bare());
      // Revision 1 is refused twice before it is accepted; 2 and 3 must wait for it.
      destination.simulator().failNext(new Fault.RejectBeforeAccept(Duration.ZERO));
      destination.simulator().failNext(new Fault.Status(429));
      List<PublicationKey> keys =
          List.of(
              new PublicationKey("t1", "a-order", "r-1", "order-dest"),
              new PublicationKey("t1", "a-order", "r-2", "order-dest"),
              new PublicationKey("t1", "a-order", "r-3", "order-dest"));
      kit.start(kit.properties(stack.groupId("order"), destination));

      for (PublicationKey key : keys) {
        kit.send(TestKit.request(key, "Revision " + key.revisionId()));
      }

      for (PublicationKey key : keys) {
        kit.awaitState(key, DeliveryState.PUBLISHED);
      }
      List<String> createdOrder = new ArrayList<>();
      for (Article article : destination.simulator().articles()) {
        createdOrder.add(Json.mapper().readTree(article.body()).get("revisionId").asText());
      }
      assertEquals(List.of("r-1", "r-2", "r-3"), createdOrder);
      DeliveryView first = kit.find(keys.get(0)).orElseThrow();
      assertEquals(3, first.attempts());
      assertEquals(
          List.of(
              "PublicationRetrying:RETRY_WAIT",
              "PublicationRetrying:RETRY_WAIT",
              "PublicationPublished:PUBLISHED"),
          kit.events(first.id()));
    }
  }

  @Test
  void shouldDeadLetterAPoisonRecordWithItsReasonAndKeepProcessingThePartition(StackContext stack) {
    try (TestKit kit = new TestKit(stack, "poison", 1)) {
      TestKit.Destination destination = kit.destination("poison-dest", Behaviour.bare());
      PublicationKey before = new PublicationKey("t1", "a-poison-1", "r-1", "poison-dest");
      PublicationKey after = new PublicationKey("t1", "a-poison-2", "r-1", "poison-dest");
      HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("poison"), destination));
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put(EventHeaders.ID, UUID.randomUUID().toString());
      headers.put(EventHeaders.EVENT_TYPE, EventTypes.PUBLICATION_REQUESTED);
      headers.put(EventHeaders.TENANT, "t1");
      var tampered = TestKit.request(before, "Tampered").toJson();
      tampered.put("payloadHash", "0".repeat(64));

      kit.send(TestKit.request(before, "Before")); // offset 0
      kit.sendRaw(before.aggregateId(), "{not json".getBytes(StandardCharsets.UTF_8), headers); // 1
      headers.put(EventHeaders.ID, UUID.randomUUID().toString());
      kit.sendRaw(
          before.aggregateId(), tampered.toString().getBytes(StandardCharsets.UTF_8), headers); // 2
      kit.send(TestKit.request(after, "After")); // offset 3

      kit.awaitState(before, DeliveryState.PUBLISHED);
      kit.awaitState(after, DeliveryState.PUBLISHED);
      List<ConsumerRecord<byte[], byte[]>> dead = readAll(stack, kit.dlqTopic, 2);
      assertEquals("invalid_json", header(dead.get(0), "herald.dlq.reason"));
      assertEquals("invalid_event", header(dead.get(1), "herald.dlq.reason"));
      assertTrue(header(dead.get(1), "herald.dlq.detail").contains("payloadHash"));
      for (int i = 0; i < 2; i++) {
        assertEquals(kit.topic, header(dead.get(i), "herald.dlq.original.topic"));
        assertEquals("0", header(dead.get(i), "herald.dlq.original.partition"));
        assertEquals(Integer.toString(i + 1), header(dead.get(i), "herald.dlq.original.offset"));
      }
      assertEquals("{not json", new String(dead.get(0).value(), StandardCharsets.UTF_8));
      assertEquals(1.0, consumer.metrics().count("herald.consumer.dlq", "reason", "invalid_json"));
    }
  }

  @Test
  void shouldWriteExactlyOneStatusEventForEveryStateChange(StackContext stack) throws Exception {
    try (TestKit kit = new TestKit(stack, "events", 2)) {
      // Every change of consumer.delivery.state, as PostgreSQL sees it, recorded by a trigger.
      kit.update(
          "CREATE TABLE IF NOT EXISTS public.state_change (n bigserial PRIMARY KEY, delivery_id uuid,"
              + " from_state text, to_state text)");
      kit.update(
          "CREATE OR REPLACE FUNCTION public.log_state_change() RETURNS trigger AS $$ BEGIN"
              + " IF NEW.state IS DISTINCT FROM OLD.state THEN INSERT INTO public.state_change"
              + " (delivery_id, from_state, to_state) VALUES (NEW.id, OLD.state, NEW.state);"
              + " END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
      kit.update("DROP TRIGGER IF EXISTS log_state_change ON consumer.delivery");
      kit.update(
          "CREATE TRIGGER log_state_change AFTER UPDATE ON consumer.delivery FOR EACH ROW"
              + " EXECUTE FUNCTION public.log_state_change()");
      TestKit.Destination retrying = kit.destination("ev-retry", Behaviour.bare());
      TestKit.Destination rejecting = kit.destination("ev-reject", Behaviour.bare());
      TestKit.Destination idempotent =
          kit.destination("ev-idem", Behaviour.cooperative().withLookup(false));
      TestKit.Destination manual = kit.destination("ev-manual", Behaviour.bare());
      retrying.simulator().failNext(new Fault.RejectBeforeAccept(Duration.ZERO));
      rejecting.simulator().failNext(new Fault.Status(422));
      idempotent.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)));
      manual.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)), 2);
      HeraldConsumer consumer =
          kit.start(
              kit.properties(stack.groupId("events"), retrying, rejecting, idempotent, manual));
      PublicationKey retried = new PublicationKey("t1", "a-ev-1", "r-1", "ev-retry");
      PublicationKey rejected = new PublicationKey("t1", "a-ev-2", "r-1", "ev-reject");
      PublicationKey resent = new PublicationKey("t1", "a-ev-3", "r-1", "ev-idem");
      PublicationKey operated = new PublicationKey("t1", "a-ev-4", "r-1", "ev-manual");
      PublicationKey abandoned = new PublicationKey("t1", "a-ev-5", "r-1", "ev-manual");

      for (PublicationKey key : List.of(retried, rejected, resent, operated, abandoned)) {
        kit.send(TestKit.request(key, "Events " + key));
      }
      kit.awaitState(retried, DeliveryState.PUBLISHED);
      kit.awaitState(rejected, DeliveryState.FAILED);
      kit.awaitState(resent, DeliveryState.PUBLISHED);
      DeliveryView parked = kit.awaitState(operated, DeliveryState.NEEDS_RECONCILIATION);
      DeliveryView parkedToo = kit.awaitState(abandoned, DeliveryState.NEEDS_RECONCILIATION);
      consumer.operatorActions().retry(parked.id(), "bob", "vendor confirmed nothing arrived");
      kit.awaitState(operated, DeliveryState.PUBLISHED);
      assertEquals(
          OperatorActions.Result.Applied.class,
          consumer.operatorActions().abandon(parkedToo.id(), "bob", "withdrawn").getClass());

      int total = 0;
      for (PublicationKey key : List.of(retried, rejected, resent, operated, abandoned)) {
        DeliveryView view = kit.find(key).orElseThrow();
        List<String> changes =
            kit.query(
                "SELECT to_state FROM public.state_change WHERE delivery_id = ?"
                    + " AND to_state <> 'DISPATCHING' ORDER BY n",
                view.id());
        List<String> announced =
            kit.query(
                "SELECT payload->>'state' FROM consumer.outbox WHERE payload->>'deliveryId' = ?"
                    + " ORDER BY occurred_at, id",
                view.id().toString());
        assertEquals(changes, announced, key.toString());
        total += changes.size();
      }
      // retried: RETRY_WAIT, PUBLISHED; rejected: FAILED; resent: UNCERTAIN, PENDING, PUBLISHED;
      // operated: UNCERTAIN, NEEDS_RECONCILIATION, PENDING, PUBLISHED; abandoned: UNCERTAIN,
      // NEEDS_RECONCILIATION, ABANDONED.
      assertEquals(13, total);
    }
  }

  private static double count(HeraldConsumer consumer, String result) {
    return consumer.metrics().count("herald.consumer.records", "result", result);
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(
      StackContext stack, String topic, int expected) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, stack.groupId("dlq-reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    ByteArrayDeserializer.class.getName()))) {
      reader.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                reader.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= expected;
              });
    }
    return records;
  }
}
