package io.herald.writer.status;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A status view that cannot reach Kafka never takes the writer's API down with it. */
@HeraldIntegrationTest
class StatusViewKafkaUnreachableIT {

  private final StackContext stack;

  StatusViewKafkaUnreachableIT(StackContext stack) {
    this.stack = stack;
  }

  @Test
  void shouldKeepServingTheApiAndReportDegradedWhileKafkaIsUnreachable() throws IOException {
    String nobody = "127.0.0.1:" + freePort();
    try (RunningWriter writer =
        RunningWriter.start(
            stack,
            Map.of(
                "writer.status.enabled",
                "true",
                "writer.kafka.bootstrap-servers",
                nobody,
                "writer.status.topic",
                stack.topic("delivery-events"),
                "writer.status.group-id",
                stack.groupId("writer-status"),
                "writer.status.max-silence",
                "2s"))) {
      HttpResponse<String> created =
          writer.post(
              "/v1/publications",
              TOKEN_A,
              """
              {"articleId":"a-%s","revisionId":"r-1","destination":"dest-a","content":{}}"""
                  .formatted(UUID.randomUUID()));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String jobId = StatusViewIT.json(created.body()).get("jobId").asText();
      HttpResponse<String> shown = writer.get("/v1/publications/" + jobId, TOKEN_A);
      assertThat(shown.statusCode()).isEqualTo(200);
      assertThat(StatusViewIT.json(shown.body()).get("status").asText()).isEqualTo("REQUESTED");

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                HttpResponse<String> health = writer.ops("/health");
                // UP: a load balancer keeps sending requests, the API works.
                assertThat(health.statusCode()).isEqualTo(200);
                JsonNode check =
                    StatusViewIT.json(health.body()).get("checks").get(StatusView.HEALTH_CHECK);
                assertThat(check.get("detail").asText()).startsWith("DEGRADED").contains(nobody);
              });
      assertThat(writer.ops("/metrics").body())
          .contains("herald_writer_status_degraded{process=\"writer\"} 1.0");
      assertThat(writer.post("/v1/publications", TOKEN_A, "{").statusCode()).isEqualTo(400);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
