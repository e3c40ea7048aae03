package io.herald.consumer.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.id.UuidV7;
import io.herald.common.json.Json;
import io.herald.consumer.TestKit;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.IntakeResult;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A poll's records taken in one transaction with multi-row statements ({@link Intake}), through the
 * real database: each record comes out as it would have alone.
 */
@HeraldIntegrationTest
class IntakeIT {

  private DataSource dataSource;
  private Intake intake;

  @BeforeEach
  void migrate(StackContext stack) {
    dataSource = stack.dataSource();
    intake = new Intake(TestKit.migratedDeliveries(stack), UuidV7.system(), Set.of("dest-a"));
  }

  @Test
  void shouldTakeAPollsRecordsInOneGoInRecordOrderEachAsItWouldHaveBeenAlone() throws Exception {
    Received known = received("a-known", "r-1", "dest-a", "Known");
    intake.accept(List.of(known));
    Received first = received("a-order", "r-1", "dest-a", "One");
    Received second = received("a-order", "r-2", "dest-a", "Two");
    Received firstAgainInThePoll = new Received(first.messageId(), first.request(), null, null);
    Received sameIntentNewMessage = new Received(UUID.randomUUID(), first.request(), null, null);
    Received otherPayload = received("a-known", "r-1", "dest-a", "Changed");
    Received unknownDestination = received("a-typo", "r-1", "dest-A", "Typo");

    List<Intake.Result> results =
        intake.accept(
            List.of(
                first,
                known,
                firstAgainInThePoll,
                second,
                sameIntentNewMessage,
                otherPayload,
                unknownDestination));

    assertEquals(7, results.size());
    assertCreated(results.get(0), DeliveryState.PENDING);
    assertInstanceOf(Intake.Result.Redelivered.class, results.get(1));
    assertInstanceOf(Intake.Result.Redelivered.class, results.get(2));
    assertCreated(results.get(3), DeliveryState.PENDING);
    assertInstanceOf(IntakeResult.Duplicate.class, accepted(results.get(4)));
    assertInstanceOf(IntakeResult.Conflict.class, accepted(results.get(5)));
    assertCreated(results.get(6), DeliveryState.UNKNOWN_DESTINATION);
    assertEquals(
        List.of("r-1", "r-2"),
        query(
            "SELECT revision_id FROM consumer.delivery WHERE article_id = 'a-order' ORDER BY seq"));
    assertEquals(
        List.of("a-known|Known", "a-order|One", "a-order|Two", "a-typo|Typo"),
        query(
            "SELECT article_id || '|' || (content->>'title') FROM consumer.delivery ORDER BY seq"));
    assertEquals(List.of("6"), query("SELECT count(*) FROM consumer.inbox"));
    assertEquals(
        List.of(
            "PublicationConflict|CONFLICT|a-known",
            "PublicationUnknownDestination|UNKNOWN_DESTINATION|a-typo"),
        query(
            "SELECT event_type || '|' || (payload->>'state') || '|' || (payload->>'articleId')"
                + " FROM consumer.outbox ORDER BY event_type"));
    assertTrue(
        query("SELECT last_error FROM consumer.delivery WHERE article_id = 'a-typo'")
            .getFirst()
            .contains("dest-A"));
  }

  private static void assertCreated(Intake.Result result, DeliveryState state) {
    IntakeResult.Created created = assertInstanceOf(IntakeResult.Created.class, accepted(result));
    assertEquals(state, created.delivery().state());
  }

  private static IntakeResult accepted(Intake.Result result) {
    return assertInstanceOf(Intake.Result.Accepted.class, result).intake();
  }

  private static Received received(
      String articleId, String revisionId, String destination, String title) {
    PublicationKey key = new PublicationKey("t1", articleId, revisionId, destination);
    return new Received(
        UUID.randomUUID(),
        PublicationRequested.of(
            UUID.randomUUID(),
            key,
            Json.mapper().createObjectNode().put("title", title),
            Instant.now()),
        null,
        null);
  }

  private List<String> query(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet result = statement.executeQuery()) {
      List<String> rows = new ArrayList<>();
      while (result.next()) {
        rows.add(result.getString(1));
      }
      return rows;
    }
  }
}
