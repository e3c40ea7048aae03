package io.herald.writer.outbox;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import io.herald.writer.retention.RetentionPurger;
import io.herald.writer.retention.RetentionSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Outbox retention: delete in the inserting transaction (the WAL keeps the event), or keep and
 * purge.
 */
@HeraldIntegrationTest
class OutboxRetentionIT {

  private static final String PUBLICATIONS = "/v1/publications";

  private final StackContext stack;

  OutboxRetentionIT(StackContext stack) {
    this.stack = stack;
  }

  @Test
  void shouldDeleteTheRowInTheSameTransactionWhileTheWalStillCarriesTheEvent() throws Exception {
    try (RunningWriter writer =
        RunningWriter.start(stack, Map.of("writer.outbox.retention", "delete-immediately"))) {
      String article = "article-" + UUID.randomUUID();
      HttpResponse<String> response = writer.post(PUBLICATIONS, TOKEN_A, body(article));
      assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
      String jobId = json(response.body()).get("jobId").asText();

      assertThat(
              writer.count("SELECT count(*) FROM writer.publication_job WHERE id = ?::uuid", jobId))
          .isEqualTo(1);
      assertThat(writer.count("SELECT count(*) FROM writer.outbox")).isZero();
      // The slot created with the schema retained the insert: the relay will stream it. (Waits:
      // the dev stack runs with synchronous_commit=off, and peeking reads flushed WAL only.)
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(walSinceSlotCreation())
                      .contains(jobId)
                      .contains("PublicationRequested"));
    }
  }

  @Test
  void shouldPurgeOnlyRowsOlderThanTheWindowInBoundedBatches() throws Exception {
    try (RunningWriter writer = RunningWriter.start(stack)) {
      for (int i = 0; i < 5; i++) {
        writer.post(PUBLICATIONS, TOKEN_A, body("article-" + UUID.randomUUID()));
      }
      long rows = writer.count("SELECT count(*) FROM writer.outbox");
      long jobs = writer.count("SELECT count(*) FROM writer.publication_job");
      assertThat(rows).isGreaterThanOrEqualTo(5);

      Instant now = Instant.now();
      RetentionPurger current = purger(now, 2, 100);
      assertThat(current.purgeOnce()).isZero(); // nothing is a day old yet

      RetentionPurger oneBatch = purger(now.plus(Duration.ofDays(2)), 2, 1);
      assertThat(oneBatch.purgeOnce()).isEqualTo(2); // bounded: one batch of two per run

      RetentionPurger later = purger(now.plus(Duration.ofDays(2)), 2, 100);
      assertThat(later.purgeOnce()).isEqualTo(rows - 2);
      assertThat(later.lastSuccess()).isPresent();
      assertThat(writer.count("SELECT count(*) FROM writer.outbox")).isZero();
      assertThat(writer.count("SELECT count(*) FROM writer.publication_job")).isEqualTo(jobs);
      current.close();
      oneBatch.close();
      later.close();
    }
  }

  @Test
  void shouldStopThePurgeLoopPromptly() {
    RetentionPurger purger = purger(Instant.now(), 10, 10, Duration.ofMillis(50));
    purger.start();
    long started = System.nanoTime();
    purger.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }

  private RetentionPurger purger(Instant now, int batchSize, int maxBatches) {
    return purger(now, batchSize, maxBatches, Duration.ofMinutes(1));
  }

  private RetentionPurger purger(Instant now, int batchSize, int maxBatches, Duration interval) {
    return new RetentionPurger(
        stack.dataSource(),
        new RetentionSettings(
            Optional.of(
                new RetentionSettings.Purge(Duration.ofDays(1), interval, batchSize, maxBatches)),
            Optional.empty()),
        Clock.fixed(now, ZoneOffset.UTC),
        new SimpleMeterRegistry());
  }

  /** The pgoutput stream of the class's slot, peeked (not consumed), as text for searching. */
  private String walSinceSlotCreation() throws Exception {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement peek =
            connection.prepareStatement(
                "SELECT data FROM pg_logical_slot_peek_binary_changes(?, NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', ?)")) {
      peek.setString(1, stack.slot());
      peek.setString(2, stack.publication());
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      try (ResultSet rows = peek.executeQuery()) {
        while (rows.next()) {
          all.writeBytes(rows.getBytes(1));
        }
      }
      return all.toString(StandardCharsets.ISO_8859_1);
    }
  }

  private static String body(String article) {
    return "{\"articleId\":\""
        + article
        + "\",\"revisionId\":\"r-1\",\"destination\":\"d\",\"content\":{\"t\":1}}";
  }

  private static JsonNode json(String text) throws Exception {
    return Json.mapper().readTree(text);
  }
}
