package io.herald.writer.status;

import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TENANT_B;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import io.herald.writer.metrics.StatusMetrics;
import io.herald.writer.retention.RetentionPurger;
import io.herald.writer.retention.RetentionSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The status view against the real PostgreSQL and Kafka of the dev stack: events produced in the
 * consumer's exact shape reach the job, once, forward only, past invalid records.
 */
@HeraldIntegrationTest
class StatusViewIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PUBLICATIONS = "/v1/publications";

  private static RunningWriter writer;
  private static StatusEvents events;

  @BeforeAll
  static void start(StackContext stack) {
    String topic = stack.topic("delivery-events");
    stack.stack().kafka().createTopic(topic, 3);
    writer =
        RunningWriter.start(
            stack,
            Map.of(
                "writer.status.enabled",
                "true",
                "writer.kafka.bootstrap-servers",
                stack.bootstrapServers(),
                "writer.status.topic",
                topic,
                "writer.status.group-id",
                stack.groupId("writer-status"),
                "writer.status.failure-backoff",
                "1s"));
    events = new StatusEvents(stack.bootstrapServers(), topic);
  }

  @AfterAll
  static void stop() {
    if (events != null) {
      events.close();
    }
    if (writer != null) {
      writer.close();
    }
  }

  @Test
  void shouldShowTheStatusAndRemoteIdOfAStatusEventThroughGet() {
    Job job = newJob();
    assertThat(job.get().get("status").asText()).isEqualTo("REQUESTED");
    assertThat(job.get().get("remoteId").isNull()).isTrue();

    events.send(
        StatusEvents.event(job.id(), job.key(), "PUBLISHED", "remote-" + job.id(), Instant.now()));

    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(job.get().get("status").asText()).isEqualTo("PUBLISHED"));
    JsonNode shown = job.get();
    assertThat(shown.get("remoteId").asText()).isEqualTo("remote-" + job.id());
    // The answer keeps every field it had before the status view existed.
    assertThat(shown.fieldNames())
        .toIterable()
        .contains(
            "jobId",
            "tenant",
            "articleId",
            "revisionId",
            "destination",
            "idempotencyKey",
            "payloadHash",
            "status",
            "remoteId",
            "traceparent",
            "createdAt",
            "updatedAt",
            "content");
  }

  @Test
  void shouldApplyTheSameEventOnceWhenItIsDeliveredTwice() {
    Job job = newJob();
    StatusEvents.Event uncertain =
        StatusEvents.event(job.id(), job.key(), "UNCERTAIN", null, Instant.now());
    events.send(uncertain);
    await().atMost(WAIT).until(() -> job.get().get("status").asText().equals("UNCERTAIN"));
    Object updatedAt = job.column("updated_at");
    double duplicates = counter("duplicate");

    events.send(uncertain); // same id header: Kafka delivering it again

    await().atMost(WAIT).until(() -> counter("duplicate") >= duplicates + 1);
    assertThat(job.column("updated_at")).isEqualTo(updatedAt);
    assertThat(job.column("status_event_id")).isEqualTo(uncertain.id());
    assertThat(inboxRows(uncertain.id())).isEqualTo(1);
  }

  @Test
  void shouldNotMoveAJobBackwardsWhenAnOlderEventArrivesAfterANewerOne() {
    Job job = newJob();
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    events.send(StatusEvents.event(job.id(), job.key(), "PUBLISHED", "remote-1", now));
    await().atMost(WAIT).until(() -> job.get().get("status").asText().equals("PUBLISHED"));
    double stale = counter("stale");

    StatusEvents.Event older =
        StatusEvents.event(job.id(), job.key(), "UNCERTAIN", null, now.minusSeconds(5));
    events.send(older);

    await().atMost(WAIT).until(() -> counter("stale") >= stale + 1);
    assertThat(inboxRows(older.id())).isEqualTo(1); // read and recorded, just not applied
    JsonNode shown = job.get();
    assertThat(shown.get("status").asText()).isEqualTo("PUBLISHED");
    assertThat(shown.get("remoteId").asText()).isEqualTo("remote-1");
  }

  @Test
  void shouldFollowAJobBackToPendingWhenTheNewerEventSaysSo() {
    // States cycle (RETRY_WAIT -> PENDING): time orders events, not a rank of states.
    Job job = newJob();
    Instant now = Instant.now();
    events.send(StatusEvents.event(job.id(), job.key(), "RETRY_WAIT", null, now));
    events.send(StatusEvents.event(job.id(), job.key(), "PENDING", null, now.plusMillis(10)));

    await().atMost(WAIT).until(() -> job.get().get("status").asText().equals("PENDING"));
  }

  @Test
  void shouldShowUnknownDestinationWhenTheConsumerHasNoConfigurationForIt() {
    // Not REQUESTED for ever: the consumer's PublicationUnknownDestination reaches the job.
    Job job = newJob();

    events.send(
        StatusEvents.event(job.id(), job.key(), "UNKNOWN_DESTINATION", null, Instant.now()));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(job.get().get("status").asText()).isEqualTo("UNKNOWN_DESTINATION"));
  }

  @Test
  void shouldSkipAnInvalidRecordAndApplyTheNextOne() {
    Job job = newJob();
    double invalid = counter("invalid");
    ProducerRecord<String, byte[]> garbage =
        new ProducerRecord<>(
            events.topic(),
            job.key().aggregateId(), // same key: same partition, just before the valid event
            "{\"jobId\": not json".getBytes(StandardCharsets.UTF_8));
    StatusEvents.header(garbage, EventHeaders.ID, UUID.randomUUID().toString());
    StatusEvents.header(garbage, EventHeaders.EVENT_TYPE, "PublicationPublished");
    StatusEvents.header(garbage, EventHeaders.TENANT, TENANT_A);
    events.send(garbage);
    StatusEvents.Event wrongState =
        new StatusEvents.Event(
            UUID.randomUUID(),
            "PublicationPublished",
            job.id(),
            job.key(),
            "DONE",
            null,
            1,
            null,
            Instant.now());
    events.send(wrongState);

    events.send(StatusEvents.event(job.id(), job.key(), "FAILED", null, Instant.now()));

    await().atMost(WAIT).until(() -> job.get().get("status").asText().equals("FAILED"));
    assertThat(counter("invalid")).isGreaterThanOrEqualTo(invalid + 2);
    assertThat(inboxRows(wrongState.id())).isZero();
  }

  @Test
  void shouldNotLetAnEventOfAnotherTenantChangeAJob() {
    Job job = newJob();
    double unknown = counter("unknown_job");
    PublicationKey otherTenant =
        new PublicationKey(
            TENANT_B, job.key().articleId(), job.key().revisionId(), job.key().destination());

    events.send(StatusEvents.event(job.id(), otherTenant, "FAILED", null, Instant.now()));

    await().atMost(WAIT).until(() -> counter("unknown_job") >= unknown + 1);
    assertThat(job.get().get("status").asText()).isEqualTo("REQUESTED");
  }

  @Test
  void shouldRecordEveryConsumedEventInTheInbox() {
    Job job = newJob();
    StatusEvents.Event first =
        StatusEvents.event(job.id(), job.key(), "UNCERTAIN", null, Instant.now());
    StatusEvents.Event second =
        StatusEvents.event(job.id(), job.key(), "PUBLISHED", "remote-2", Instant.now());
    StatusEvents.Event unknownJob =
        StatusEvents.event(UUID.randomUUID(), job.key(), "PUBLISHED", "remote-3", Instant.now());

    events.send(first);
    events.send(second);
    events.send(unknownJob);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(inboxRows(first.id())).isEqualTo(1);
              assertThat(inboxRows(second.id())).isEqualTo(1);
              assertThat(inboxRows(unknownJob.id())).isEqualTo(1);
            });
    assertThat(
            writer.row(
                "SELECT handler, received_at FROM writer.inbox WHERE message_id = ?", second.id()))
        .containsEntry("handler", StatusStore.HANDLER)
        .containsKey("received_at");
  }

  @Test
  void shouldReportTheStatusViewOnHealthAndMetrics() {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              HttpResponse<String> health = writer.ops("/health");
              assertThat(health.statusCode()).isEqualTo(200);
              JsonNode check = json(health.body()).get("checks").get(StatusView.HEALTH_CHECK);
              assertThat(check.get("status").asText()).isEqualTo("UP");
              assertThat(check.get("detail").asText()).startsWith("reading ");
            });
    String metrics = writer.ops("/metrics").body();
    assertThat(metrics)
        .contains("herald_writer_status_events_total{outcome=\"applied\"")
        .contains("herald_writer_status_events_total{outcome=\"duplicate\"")
        .contains("herald_writer_status_events_total{outcome=\"stale\"")
        .contains("herald_writer_status_events_total{outcome=\"invalid\"")
        .contains("herald_writer_status_degraded")
        .contains("herald_writer_status_last_poll_age_seconds");
  }

  @Test
  void shouldApplyAnEventOnceWhenTwoWritersRaceToApplyIt() throws Exception {
    // Two writer instances during a rebalance can both hold the same record: the inbox's primary
    // key makes the second transaction wait for the first and then see a duplicate.
    Job job = newJob();
    StatusStore store = new StatusStore(writer.dataSource(), Clock.systemUTC());
    Instant start = Instant.now();
    ExecutorService racers = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        StatusEvent event =
            new StatusEvent(
                UUID.randomUUID(),
                job.id(),
                TENANT_A,
                round % 2 == 0 ? "RETRY_WAIT" : "PENDING",
                null,
                start.plusMillis(round).truncatedTo(ChronoUnit.MICROS));
        CyclicBarrier barrier = new CyclicBarrier(2);
        Callable<StatusStore.Outcome> apply =
            () -> {
              barrier.await(10, TimeUnit.SECONDS);
              return store.apply(List.of(event)).getFirst();
            };
        Future<StatusStore.Outcome> first = racers.submit(apply);
        Future<StatusStore.Outcome> second = racers.submit(apply);

        assertThat(List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS)))
            .as("round %d", round)
            .containsExactlyInAnyOrder(StatusStore.Outcome.APPLIED, StatusStore.Outcome.DUPLICATE);
        assertThat(inboxRows(event.messageId())).isEqualTo(1);
      }
    } finally {
      racers.shutdownNow();
    }
    assertThat(job.get().get("status").asText()).isEqualTo("PENDING"); // round 19, the newest
  }

  @Test
  void shouldApplyABatchEventByEventInOrderWithAnIdTwiceInItOnlyOnce() throws Exception {
    Job job = newJob();
    StatusStore store = new StatusStore(writer.dataSource(), Clock.systemUTC());
    Instant start = Instant.now().truncatedTo(ChronoUnit.MICROS);
    StatusEvent retrying =
        new StatusEvent(UUID.randomUUID(), job.id(), TENANT_A, "RETRY_WAIT", null, start);
    StatusEvent published =
        new StatusEvent(
            UUID.randomUUID(), job.id(), TENANT_A, "PUBLISHED", "remote-b", start.plusMillis(2));
    StatusEvent older =
        new StatusEvent(
            UUID.randomUUID(), job.id(), TENANT_A, "PENDING", null, start.plusMillis(1));
    StatusEvent otherJob =
        new StatusEvent(UUID.randomUUID(), UUID.randomUUID(), TENANT_A, "PENDING", null, start);

    List<StatusStore.Outcome> outcomes =
        store.apply(List.of(retrying, retrying, published, older, otherJob));

    assertThat(outcomes)
        .containsExactly(
            StatusStore.Outcome.APPLIED,
            StatusStore.Outcome.DUPLICATE,
            StatusStore.Outcome.APPLIED,
            StatusStore.Outcome.STALE,
            StatusStore.Outcome.UNKNOWN_JOB);
    assertThat(inboxRows(retrying.messageId())).isEqualTo(1);
    assertThat(inboxRows(otherJob.messageId())).isEqualTo(1);
    assertThat(job.get().get("status").asText()).isEqualTo("PUBLISHED");
    assertThat(job.get().get("remoteId").asText()).isEqualTo("remote-b");
    assertThat(store.apply(List.of(published))).containsExactly(StatusStore.Outcome.DUPLICATE);
  }

  @Test
  void shouldOrderTwoEventsOfOneMicrosecondByTheirIdsAsPostgresqlOrdersUuids() throws Exception {
    // Same time, ids differing in the first bit: greater as bytes (PostgreSQL's order, the one
    // the job's stored pair is compared in) but smaller as a signed Java long (UUID.compareTo).
    UUID random = UUID.randomUUID();
    UUID low = new UUID(random.getMostSignificantBits() & Long.MAX_VALUE, 1);
    UUID high = new UUID(random.getMostSignificantBits() | Long.MIN_VALUE, 1);
    assertThat(writer.count("SELECT CASE WHEN ?::uuid < ?::uuid THEN 1 ELSE 0 END", low, high))
        .isEqualTo(1);
    assertThat(high.compareTo(low)).isNegative();
    StatusStore store = new StatusStore(writer.dataSource(), Clock.systemUTC());
    Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);

    Job inOneBatch = newJob();
    assertThat(
            store.apply(
                List.of(
                    new StatusEvent(low, inOneBatch.id(), TENANT_A, "RETRY_WAIT", null, at),
                    new StatusEvent(high, inOneBatch.id(), TENANT_A, "PENDING", null, at))))
        .containsExactly(StatusStore.Outcome.APPLIED, StatusStore.Outcome.APPLIED);
    assertThat(inOneBatch.column("status_event_id")).isEqualTo(high);

    Job inTwoBatches = newJob();
    UUID lowToo = new UUID(low.getMostSignificantBits(), 2);
    UUID highToo = new UUID(high.getMostSignificantBits(), 2);
    assertThat(
            store.apply(
                List.of(
                    new StatusEvent(highToo, inTwoBatches.id(), TENANT_A, "PENDING", null, at))))
        .containsExactly(StatusStore.Outcome.APPLIED);
    assertThat(
            store.apply(
                List.of(
                    new StatusEvent(lowToo, inTwoBatches.id(), TENANT_A, "RETRY_WAIT", null, at))))
        .containsExactly(StatusStore.Outcome.STALE);
    assertThat(inTwoBatches.get().get("status").asText()).isEqualTo("PENDING");
  }

  @Test
  void shouldChangeAJobsStatusInPlaceWithoutNewIndexEntries() throws Exception {
    // A heap-only (HOT) update: migration writer/V8 took status out of every index and left room
    // on each page, so the status view's update writes no index entry.
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      jobs.add(newJob());
    }
    String stats =
        "SELECT %s FROM pg_stat_user_tables"
            + " WHERE schemaname = 'writer' AND relname = 'publication_job'";
    String updates = stats.formatted("n_tup_upd");
    String fullUpdates = stats.formatted("n_tup_upd - n_tup_hot_upd");
    long updatedBefore = writer.count(updates);
    long fullBefore = writer.count(fullUpdates);
    Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);

    StatusStore store = new StatusStore(writer.dataSource(), Clock.systemUTC());
    for (int i = 0; i < jobs.size(); i += 4) {
      // Batches of four, as events arrive: room on the page for each batch's new versions.
      List<StatusEvent> batch =
          jobs.subList(i, i + 4).stream()
              .map(
                  job ->
                      new StatusEvent(UUID.randomUUID(), job.id(), TENANT_A, "PUBLISHED", "r", at))
              .toList();
      assertThat(store.apply(batch)).containsOnly(StatusStore.Outcome.APPLIED);
    }

    // The statistics reach pg_stat_user_tables when the writing backend next flushes them.
    await().atMost(WAIT).until(() -> writer.count(updates) >= updatedBefore + jobs.size());
    assertThat(writer.count(fullUpdates)).isEqualTo(fullBefore);
  }

  @Test
  void shouldPurgeInboxRowsOlderThanTheRetentionInBoundedBatches() throws Exception {
    Instant now = Instant.now();
    String handler = "purge-test-" + UUID.randomUUID();
    for (int i = 0; i < 5; i++) {
      insertInbox(UUID.randomUUID(), handler, now.minus(Duration.ofHours(2)));
    }
    UUID recent = UUID.randomUUID();
    insertInbox(recent, handler, now.minus(Duration.ofMinutes(30)));
    RetentionSettings settings =
        new RetentionSettings(
            Optional.empty(),
            Optional.of(
                new RetentionSettings.Purge(Duration.ofHours(1), Duration.ofMinutes(1), 2, 2)));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (RetentionPurger purger =
        new RetentionPurger(
            writer.dataSource(), settings, Clock.fixed(now, ZoneOffset.UTC), registry)) {
      assertThat(purger.purgeOnce()).isEqualTo(4); // two statements of two rows: one run's bound
      assertThat(purger.purgeOnce()).isEqualTo(1);
      assertThat(purger.purgeOnce()).isZero();
    }

    assertThat(writer.count("SELECT count(*) FROM writer.inbox WHERE handler = ?", handler))
        .isEqualTo(1);
    assertThat(writer.count("SELECT count(*) FROM writer.inbox WHERE message_id = ?", recent))
        .isEqualTo(1);
    assertThat(registry.get("herald.writer.status.inbox.purged").counter().count()).isEqualTo(5);
  }

  private static void insertInbox(UUID id, String handler, Instant receivedAt) throws Exception {
    try (Connection connection = writer.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO writer.inbox (message_id, handler, received_at) VALUES (?, ?, ?)")) {
      insert.setObject(1, id);
      insert.setString(2, handler);
      insert.setObject(3, OffsetDateTime.ofInstant(receivedAt, ZoneOffset.UTC));
      insert.executeUpdate();
    }
  }

  /** A job created through the API. */
  private record Job(UUID id, PublicationKey key) {

    JsonNode get() {
      HttpResponse<String> response = writer.get(PUBLICATIONS + "/" + id, TOKEN_A);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return json(response.body());
    }

    Object column(String name) {
      return writer
          .row("SELECT " + name + " FROM writer.publication_job WHERE id = ?", id)
          .get(name);
    }
  }

  private static Job newJob() {
    String article = "article-" + UUID.randomUUID();
    HttpResponse<String> response =
        writer.post(
            PUBLICATIONS,
            TOKEN_A,
            """
            {"articleId":"%s","revisionId":"r-1","destination":"dest-a","content":{"title":"t"}}"""
                .formatted(article));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    UUID id = UUID.fromString(json(response.body()).get("jobId").asText());
    return new Job(id, new PublicationKey(TENANT_A, article, "r-1", "dest-a"));
  }

  private static long inboxRows(UUID messageId) {
    return writer.count(
        "SELECT count(*) FROM writer.inbox WHERE message_id = ? AND handler = ?",
        messageId,
        StatusStore.HANDLER);
  }

  private static double counter(String outcome) {
    return writer
        .process()
        .registry()
        .get(StatusMetrics.EVENTS)
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
