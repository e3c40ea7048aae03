package io.herald.consumer.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.id.UuidV7;
import io.herald.consumer.TestKit;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.retention.RetentionPurger;
import io.herald.consumer.retention.RetentionSettings;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.Databases;
import io.herald.runtime.db.Transactions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt history ({@code consumer.delivery_attempt}) as {@link Deliveries} writes it beside
 * each claim holder's result, through the real database, and as retention purges it.
 */
@HeraldIntegrationTest
class DeliveryAttemptsIT {

  private static final Duration LEASE = Duration.ofMinutes(1);

  private DataSource dataSource;
  private Deliveries deliveries;

  @BeforeEach
  void migrate(StackContext stack) {
    dataSource = stack.dataSource();
    deliveries = TestKit.migratedDeliveries(stack);
  }

  @Test
  void shouldRecordEachCallWithItsTokenTimesStatusAndTheStateItsResultRecorded() throws Exception {
    UUID id = create("a-history");
    ClaimedDelivery dispatch = claimDue("a-history");
    deliveries.complete(
        dispatch,
        Transition.uncertain("no answer within the request timeout after sending"),
        new Attempt(
            Attempt.Kind.PUBLISH,
            "owner-1",
            Duration.ofMillis(1500),
            "uncertain",
            null,
            "no answer within the request timeout after sending"));
    ClaimedDelivery lookup =
        deliveries.claimUncertain("a-history", "owner-2", 10, LEASE, Duration.ZERO).get(0);
    deliveries.complete(
        lookup,
        Transition.published("remote-7", "found by lookup"),
        new Attempt(Attempt.Kind.LOOKUP, "owner-2", Duration.ofMillis(20), "found", 200, null));

    List<String> rows = attempts(id);

    assertEquals(
        List.of(
            "1|1|PUBLISH|owner-1|1500|null|uncertain|UNCERTAIN|null"
                + "|no answer within the request timeout after sending",
            "1|2|LOOKUP|owner-2|20|200|found|PUBLISHED|remote-7|null"),
        rows);
    assertEquals(dispatch.claimToken() + 1, lookup.claimToken());
  }

  @Test
  void shouldPlanTheRecordingOfResultsAtEveryExecutionOnALongLivedConnection(StackContext stack)
      throws Exception {
    DatabaseConfig config =
        new DatabaseConfig(
            stack.jdbcUrl(), stack.user(), stack.password(), 1, Duration.ofSeconds(5));
    try (HikariDataSource pool = Databases.pool("plans", config, new SimpleMeterRegistry())) {
      dataSource = pool;
      deliveries =
          new Deliveries(
              pool, new StatusEvents(Clock.systemUTC(), UuidV7.system(), Duration.ofDays(1)));
      // Twelve results on the pool's one connection: pgjdbc prepares a statement on the server
      // after five executions, and the server may then plan it once for all later parameters.
      for (int i = 0; i < 12; i++) {
        create("plan-" + i);
        deliveries.complete(
            claimDue("plan-" + i),
            Transition.published("remote-" + i, null),
            new Attempt(
                Attempt.Kind.PUBLISH, "owner-1", Duration.ofMillis(2), "published", 201, null));
      }

      List<String> prepared = query("SELECT statement FROM pg_prepared_statements WHERE ?", true);

      assertTrue(
          prepared.stream().anyMatch(sql -> sql.contains("INSERT INTO consumer.delivery_attempt")),
          "the connection prepares the statements it repeats: " + prepared);
      assertTrue(
          prepared.stream().noneMatch(sql -> sql.contains("SET state = c.state")),
          "the results' update is planned at each execution: " + prepared);
    }
  }

  @Test
  void shouldKeepTheAttemptOfAResultTheFencingTokenRefused() throws Exception {
    UUID id = create("a-fenced");
    ClaimedDelivery late = claimDue("a-fenced");
    // Another instance took the row over (what an expired lease and a new claim do).
    update("UPDATE consumer.delivery SET claim_token = claim_token + 1 WHERE id = ?", id);

    var recorded =
        deliveries.complete(
            late,
            Transition.published("remote-late", null),
            new Attempt(
                Attempt.Kind.PUBLISH, "owner-1", Duration.ofMillis(3), "published", 201, null));

    assertTrue(recorded.isEmpty());
    assertEquals(
        List.of("1|1|PUBLISH|owner-1|3|201|published|null|remote-late|null"), attempts(id));
    assertEquals(
        List.of("DISPATCHING"), query("SELECT state FROM consumer.delivery WHERE id = ?", id));
  }

  @Test
  void shouldRecordAGroupOfResultsInOneGoEachFencedByItsOwnClaim() throws Exception {
    UUID published = create("g-published");
    UUID fenced = create("g-fenced");
    UUID uncertain = create("g-uncertain");
    ClaimedDelivery first = claimDue("g-published");
    ClaimedDelivery late = claimDue("g-fenced");
    ClaimedDelivery third = claimDue("g-uncertain");
    update("UPDATE consumer.delivery SET claim_token = claim_token + 1 WHERE id = ?", fenced);

    List<Optional<Recorded>> recorded =
        deliveries.completeAll(
            List.of(
                new Completion(
                    first,
                    Transition.published("remote-g1", null),
                    new Attempt(
                        Attempt.Kind.PUBLISH,
                        "owner-1",
                        Duration.ofMillis(4),
                        "published",
                        201,
                        null,
                        "cd".repeat(32))),
                new Completion(
                    late,
                    Transition.published("remote-late", null),
                    new Attempt(
                        Attempt.Kind.PUBLISH,
                        "owner-1",
                        Duration.ofMillis(5),
                        "published",
                        201,
                        null)),
                new Completion(
                    third,
                    Transition.uncertain("broken connection after sending"),
                    new Attempt(
                        Attempt.Kind.PUBLISH,
                        "owner-1",
                        Duration.ofMillis(6),
                        "uncertain",
                        null,
                        "broken connection after sending"))));

    assertEquals(DeliveryState.PUBLISHED, recorded.get(0).orElseThrow().delivery().state());
    assertEquals("remote-g1", recorded.get(0).orElseThrow().delivery().remoteId());
    assertTrue(recorded.get(1).isEmpty(), "the fenced result is discarded");
    assertEquals(DeliveryState.UNCERTAIN, recorded.get(2).orElseThrow().delivery().state());
    assertEquals(
        List.of("1|1|PUBLISH|owner-1|4|201|published|PUBLISHED|remote-g1|null"),
        attempts(published));
    assertEquals(
        List.of("1|1|PUBLISH|owner-1|5|201|published|null|remote-late|null"), attempts(fenced));
    assertEquals(
        List.of(
            "1|1|PUBLISH|owner-1|6|null|uncertain|UNCERTAIN|null|broken connection after sending"),
        attempts(uncertain));
    assertEquals(
        List.of("cd".repeat(32)),
        query(
            "SELECT request_hash FROM consumer.delivery_attempt WHERE delivery_id = ?", published));
    assertEquals(List.of("PUBLISHED|remote-g1|null|null"), row(published));
    assertEquals(List.of("DISPATCHING|null|null|owner-1"), row(fenced));
    assertEquals(List.of("UNCERTAIN|null|broken connection after sending|null"), row(uncertain));
    assertEquals(
        List.of(),
        query(
            "SELECT 1 FROM consumer.delivery WHERE id = ? AND uncertain_since IS NULL", uncertain));
    assertEquals(List.of("PublicationPublished|PUBLISHED|remote-g1"), events(published));
    assertEquals(List.of(), events(fenced));
    assertEquals(List.of("PublicationUncertain|UNCERTAIN|null"), events(uncertain));
  }

  @Test
  void shouldSayWhenAFinalResultReleasesALaterRevisionItHeldBack() throws Exception {
    create("r-first", "r-1");
    create("r-first", "r-2"); // held back behind r-1 (guarantee 5)
    create("r-alone", "r-1");
    ClaimedDelivery first = claimDue("r-first");
    ClaimedDelivery alone = claimDue("r-alone");
    assertTrue(deliveries.claimDue("r-first", "owner-1", 10, LEASE).isEmpty(), "r-2 is held back");

    List<Optional<Recorded>> retrying =
        deliveries.completeAll(
            List.of(new Completion(first, Transition.retryWait("503", Duration.ZERO), attempt())));
    assertFalse(retrying.getFirst().orElseThrow().releasedLater(), "RETRY_WAIT is not final");

    ClaimedDelivery again = claimDue("r-first");
    List<Optional<Recorded>> recorded =
        deliveries.completeAll(
            List.of(
                new Completion(again, Transition.published("remote-1", null), attempt()),
                new Completion(alone, Transition.published("remote-2", null), attempt())));

    assertTrue(recorded.get(0).orElseThrow().releasedLater(), "r-2 was waiting for r-1");
    assertFalse(recorded.get(1).orElseThrow().releasedLater(), "nothing waited for r-alone");
    assertEquals("r-2", claimDue("r-first").key().revisionId());
  }

  private static Attempt attempt() {
    return new Attempt(Attempt.Kind.PUBLISH, "owner-1", Duration.ofMillis(1), "done", 200, null);
  }

  /** state|remote id|last error|claim owner of a delivery. */
  private List<String> row(UUID id) throws SQLException {
    return query(
        "SELECT state || '|' || coalesce(remote_id, 'null') || '|' || coalesce(last_error, 'null')"
            + " || '|' || coalesce(claim_owner, 'null') FROM consumer.delivery WHERE id = ?",
        id);
  }

  /** event type|state|remote id of each status event of a delivery, in order. */
  private List<String> events(UUID id) throws SQLException {
    return query(
        "SELECT event_type || '|' || (payload->>'state') || '|' || coalesce(payload->>'remoteId', 'null')"
            + " FROM consumer.outbox WHERE payload->>'deliveryId' = ?::text ORDER BY occurred_at, id",
        id);
  }

  @Test
  void shouldStoreThePublishsRequestHashAndNoneForALookup() throws Exception {
    UUID id = create("a-hash");
    String hash = "ab".repeat(32);
    deliveries.complete(
        claimDue("a-hash"),
        Transition.uncertain("broken connection"),
        new Attempt(
            Attempt.Kind.PUBLISH, "owner-1", Duration.ZERO, "uncertain", null, "broken", hash));
    deliveries.complete(
        deliveries.claimUncertain("a-hash", "owner-2", 10, LEASE, Duration.ZERO).get(0),
        Transition.published("remote-9", "found by lookup"),
        new Attempt(Attempt.Kind.LOOKUP, "owner-2", Duration.ZERO, "found", 200, null));

    assertEquals(
        List.of(hash, "null"),
        query(
            "SELECT coalesce(request_hash, 'null') FROM consumer.delivery_attempt"
                + " WHERE delivery_id = ? ORDER BY claim_token",
            id));
  }

  @Test
  void shouldStoreALongErrorTrimmedToTheBound() throws Exception {
    UUID id = create("a-long-error");
    deliveries.complete(
        claimDue("a-long-error"),
        Transition.failed("rejected"),
        new Attempt(
            Attempt.Kind.PUBLISH, "owner-1", Duration.ZERO, "permanent", 422, "x".repeat(20_000)));

    assertEquals(
        List.of(Integer.toString(Attempt.MAX_ERROR_LENGTH)),
        query("SELECT length(error) FROM consumer.delivery_attempt WHERE delivery_id = ?", id));
  }

  @Test
  void shouldPurgeTheAttemptsWithTheirFinishedDeliveryAndKeepThoseOfOpenOnes() throws Exception {
    UUID finished = create("a-purge-finished");
    deliveries.complete(
        claimDue("a-purge-finished"),
        Transition.published("remote-1", null),
        new Attempt(Attempt.Kind.PUBLISH, "owner-1", Duration.ZERO, "published", 201, null));
    UUID open = create("a-purge-open");
    deliveries.complete(
        claimDue("a-purge-open"),
        Transition.uncertain("broken connection"),
        new Attempt(Attempt.Kind.PUBLISH, "owner-1", Duration.ZERO, "uncertain", null, "broken"));
    update(
        "UPDATE consumer.delivery SET updated_at = now() - interval '2 hours' WHERE id = ?",
        finished);
    update(
        "UPDATE consumer.delivery SET updated_at = now() - interval '2 hours' WHERE id = ?", open);

    new RetentionPurger(
            dataSource,
            new RetentionSettings(
                Duration.ofDays(30),
                Duration.ofHours(1),
                Duration.ofDays(30),
                Duration.ofMinutes(1),
                10),
            new ConsumerMetrics(new SimpleMeterRegistry()))
        .purgeOnce();

    assertEquals(List.of(), attempts(finished));
    assertEquals(1, attempts(open).size());
  }

  private UUID create(String articleId) throws SQLException {
    return create(articleId, "r-1");
  }

  private UUID create(String articleId, String revisionId) throws SQLException {
    // Each test its own destination (named after the article): claims never cross tests.
    PublicationRequested request =
        TestKit.request(new PublicationKey("t1", articleId, revisionId, articleId), "T");
    UUID id = UuidV7.system().get();
    Transactions.inTransaction(
        dataSource,
        connection ->
            deliveries.insertAll(
                connection,
                List.of(new NewDelivery(id, UUID.randomUUID(), request, null, null)),
                List.of(Transition.received())));
    return id;
  }

  private ClaimedDelivery claimDue(String destination) throws SQLException {
    List<ClaimedDelivery> claims = deliveries.claimDue(destination, "owner-1", 1, LEASE);
    assertEquals(1, claims.size(), "one due delivery");
    return claims.get(0);
  }

  /**
   * attempt|claim token offset|kind|owner|milliseconds taken|http|outcome|state|remote id|error.
   */
  private List<String> attempts(UUID id) throws SQLException {
    return query(
        "SELECT attempt || '|' || (claim_token - min(claim_token) OVER () + 1) || '|' || kind"
            + " || '|' || claim_owner || '|' || (extract(epoch FROM ended_at - started_at) * 1000)::bigint"
            + " || '|' || coalesce(http_status::text, 'null') || '|' || outcome"
            + " || '|' || coalesce(recorded_state, 'null') || '|' || coalesce(remote_id, 'null')"
            + " || '|' || coalesce(error, 'null')"
            + " FROM consumer.delivery_attempt WHERE delivery_id = ? ORDER BY claim_token",
        id);
  }

  private List<String> query(String sql, Object arg) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setObject(1, arg);
      List<String> rows = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.add(result.getString(1));
        }
      }
      return rows;
    }
  }

  private void update(String sql, Object arg) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setObject(1, arg);
      statement.executeUpdate();
    }
  }
}
