package io.herald.writer.status;

import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.common.event.PublicationKey;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The broker stopped under a running writer: the API keeps answering, the status view reports
 * DEGRADED, and after the restart it recovers by itself and applies what was published meanwhile.
 */
@HeraldIntegrationTest
class StatusViewKafkaOutageIT {

  private static final Duration WAIT = Duration.ofSeconds(90);

  private static StackContext stack;

  StatusViewKafkaOutageIT(StackContext context) {
    stack = context;
  }

  @AfterAll
  static void restartBroker() {
    stack.stack().kafka().start(); // a no-op unless the test failed while it was down
  }

  @Test
  void shouldKeepTheApiUpReportDegradedAndCatchUpWhenKafkaReturns() {
    String topic = stack.topic("delivery-events");
    stack.stack().kafka().createTopic(topic, 1);
    try (StatusEvents events = new StatusEvents(stack.bootstrapServers(), topic);
        RunningWriter writer =
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
                    "writer.status.max-silence",
                    "3s",
                    "writer.status.failure-backoff",
                    "500ms"))) {
      UUID first = publish(writer);
      PublicationKey firstKey = key(writer, first);
      events.send(StatusEvents.event(first, firstKey, "UNCERTAIN", null, Instant.now()));
      await().atMost(WAIT).until(() -> status(writer, first).equals("UNCERTAIN"));
      await().atMost(WAIT).until(() -> detail(writer).startsWith("reading "));

      stack.stack().kafka().stop();
      UUID second;
      try {
        await().atMost(WAIT).until(() -> detail(writer).startsWith("DEGRADED"));
        assertThat(writer.ops("/health").statusCode()).isEqualTo(200);
        second = publish(writer); // the API does not need Kafka
        assertThat(status(writer, second)).isEqualTo("REQUESTED");
      } finally {
        stack.stack().kafka().start();
      }

      events.send(StatusEvents.event(first, firstKey, "PUBLISHED", "remote-1", Instant.now()));
      events.send(StatusEvents.event(second, key(writer, second), "PENDING", null, Instant.now()));

      await().atMost(WAIT).until(() -> status(writer, first).equals("PUBLISHED"));
      await().atMost(WAIT).until(() -> status(writer, second).equals("PENDING"));
      await().atMost(WAIT).until(() -> detail(writer).startsWith("reading "));
    }
  }

  private static UUID publish(RunningWriter writer) {
    HttpResponse<String> created =
        writer.post(
            "/v1/publications",
            TOKEN_A,
            """
            {"articleId":"a-%s","revisionId":"r-1","destination":"dest-a","content":{}}"""
                .formatted(UUID.randomUUID()));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return UUID.fromString(StatusViewIT.json(created.body()).get("jobId").asText());
  }

  private static PublicationKey key(RunningWriter writer, UUID jobId) {
    String article =
        StatusViewIT.json(writer.get("/v1/publications/" + jobId, TOKEN_A).body())
            .get("articleId")
            .asText();
    return new PublicationKey(TENANT_A, article, "r-1", "dest-a");
  }

  private static String status(RunningWriter writer, UUID jobId) {
    HttpResponse<String> response = writer.get("/v1/publications/" + jobId, TOKEN_A);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return StatusViewIT.json(response.body()).get("status").asText();
  }

  private static String detail(RunningWriter writer) {
    return StatusViewIT.json(writer.ops("/health").body())
        .get("checks")
        .get(StatusView.HEALTH_CHECK)
        .get("detail")
        .asText();
  }
}
