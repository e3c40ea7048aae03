package io.herald.writer.status;

import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.common.event.PublicationKey;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import io.herald.writer.metrics.StatusMetrics;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL down while status events arrive: the batch fails, its offsets are not committed, and
 * the events are applied once the database is back, even by a writer started afresh.
 */
@HeraldIntegrationTest
class StatusViewDatabaseOutageIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static StackContext stack;
  private static StatusEvents events;
  private static Map<String, String> properties;

  @BeforeAll
  static void start(StackContext context) {
    stack = context;
    String topic = context.topic("delivery-events");
    context.stack().kafka().createTopic(topic, 1);
    events = new StatusEvents(context.bootstrapServers(), topic);
    properties =
        Map.of(
            "writer.status.enabled",
            "true",
            "writer.kafka.bootstrap-servers",
            context.bootstrapServers(),
            "writer.status.topic",
            topic,
            "writer.status.group-id",
            context.groupId("writer-status"),
            "writer.status.failure-backoff",
            "500ms",
            "writer.db.connect-timeout",
            "1s");
  }

  @AfterAll
  static void stop() {
    stack.stack().postgres().start(); // a no-op unless a test failed while it was down
    events.close();
  }

  @Test
  void shouldApplyEventsThatArrivedWhileTheDatabaseWasDownAfterItIsBackEvenAfterARestart() {
    UUID jobId;
    PublicationKey key;
    RunningWriter writer = RunningWriter.start(stack, properties);
    try {
      String article = "article-" + UUID.randomUUID();
      HttpResponse<String> created =
          writer.post(
              "/v1/publications",
              TOKEN_A,
              """
              {"articleId":"%s","revisionId":"r-1","destination":"dest-a","content":{}}"""
                  .formatted(article));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      jobId = UUID.fromString(StatusViewIT.json(created.body()).get("jobId").asText());
      key = new PublicationKey(TENANT_A, article, "r-1", "dest-a");
      // A first event applied and its offset committed: the group has a position to resume from.
      events.send(StatusEvents.event(jobId, key, "UNCERTAIN", null, Instant.now()));
      await().atMost(WAIT).until(() -> status(writer, jobId).equals("UNCERTAIN"));

      stack.stack().postgres().stop();
      try {
        events.send(StatusEvents.event(jobId, key, "PUBLISHED", "remote-7", Instant.now()));
        await().atMost(WAIT).until(() -> failures(writer) >= 1);
        assertThat(
                StatusViewIT.json(writer.ops("/health").body())
                    .get("checks")
                    .get(StatusView.HEALTH_CHECK)
                    .get("detail")
                    .asText())
            .startsWith("DEGRADED: applying status events has failed");
        writer.close(); // stopped while the batch cannot be stored
      } finally {
        stack.stack().postgres().start();
      }
    } finally {
      writer.close();
    }

    try (RunningWriter restarted = RunningWriter.start(stack, properties)) {
      await().atMost(WAIT).until(() -> status(restarted, jobId).equals("PUBLISHED"));
      assertThat(
              StatusViewIT.json(restarted.get("/v1/publications/" + jobId, TOKEN_A).body())
                  .get("remoteId")
                  .asText())
          .isEqualTo("remote-7");
      assertThat(
              restarted.count(
                  "SELECT count(*) FROM writer.inbox WHERE handler = ?", StatusStore.HANDLER))
          .isEqualTo(2);
    }
  }

  private static String status(RunningWriter writer, UUID jobId) {
    HttpResponse<String> response = writer.get("/v1/publications/" + jobId, TOKEN_A);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return StatusViewIT.json(response.body()).get("status").asText();
  }

  private static double failures(RunningWriter writer) {
    return writer.process().registry().get(StatusMetrics.FAILURES).counter().count();
  }
}
