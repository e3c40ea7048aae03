package io.herald.writer.status;

import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TENANT_B;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The status view: consumer status events from Kafka show up on GET /v1/publications/{id}. */
@HeraldIntegrationTest
class StatusViewIT {

  private static RunningWriter writer;
  private static KafkaProducer<String, String> producer;
  private static String topic;

  @BeforeAll
  static void start(StackContext stack) {
    topic = stack.topic("delivery-events");
    stack.stack().kafka().createTopic(topic, 1);
    writer =
        RunningWriter.start(
            stack,
            Map.of(
                "writer.kafka.bootstrap-servers", stack.bootstrapServers(),
                "writer.status.topic", topic,
                "writer.status.group-id", stack.groupId("status")));
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    producer = new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
  }

  @AfterAll
  static void stop() {
    producer.close();
    writer.close();
  }

  @Test
  void shouldShowTheLatestDeliveryStateAndRemoteIdOfAJob() throws Exception {
    String jobId = createJob();
    send(UUID.randomUUID(), status(jobId, TENANT_A, "DISPATCHING", null));
    UUID published = UUID.randomUUID();
    send(published, status(jobId, TENANT_A, "PUBLISHED", "remote-42"));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(job(jobId).get("status").asText()).isEqualTo("PUBLISHED"));
    assertThat(job(jobId).get("remoteId").asText()).isEqualTo("remote-42");

    // Redelivered, garbage, and another tenant's claim on the job: none changes it, and the view
    // keeps reading what follows.
    send(published, status(jobId, TENANT_A, "PUBLISHED", "remote-42"));
    producer.send(new ProducerRecord<>(topic, "k", "not json")).get();
    send(UUID.randomUUID(), status(jobId, TENANT_B, "FAILED", null));
    String other = createJob();
    send(UUID.randomUUID(), status(other, TENANT_A, "UNCERTAIN", null));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(job(other).get("status").asText()).isEqualTo("UNCERTAIN"));
    assertThat(job(jobId).get("status").asText()).isEqualTo("PUBLISHED");
    String metrics = writer.ops("/metrics").body();
    assertThat(metrics)
        .containsPattern("herald_writer_status_events_total\\{[^}]*outcome=\"duplicate\"[^}]*} 1");
    assertThat(metrics)
        .containsPattern("herald_writer_status_events_total\\{[^}]*outcome=\"invalid\"[^}]*} 1");
    assertThat(metrics)
        .containsPattern(
            "herald_writer_status_events_total\\{[^}]*outcome=\"unknown_job\"[^}]*} 1");
    assertThat(writer.count("SELECT count(*) FROM writer.inbox")).isEqualTo(4);
  }

  private static String createJob() {
    HttpResponse<String> created =
        writer.post(
            "/v1/publications",
            TOKEN_A,
            "{\"articleId\":\"a-"
                + UUID.randomUUID()
                + "\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}");
    assertThat(created.statusCode()).isEqualTo(201);
    return json(created.body()).get("jobId").asText();
  }

  private static JsonNode job(String jobId) {
    return json(writer.get("/v1/publications/" + jobId, TOKEN_A).body());
  }

  private static String status(String jobId, String tenant, String state, String remoteId) {
    return "{\"deliveryId\":\""
        + UUID.randomUUID()
        + "\",\"jobId\":\""
        + jobId
        + "\",\"tenant\":\""
        + tenant
        + "\",\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"state\":\""
        + state
        + "\",\"remoteId\":"
        + (remoteId == null ? "null" : "\"" + remoteId + "\"")
        + ",\"attempts\":1,\"reason\":null,\"occurredAt\":\""
        + Instant.now()
        + "\"}";
  }

  private static void send(UUID eventId, String value) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, "key", value);
    record.headers().add(EventHeaders.ID, eventId.toString().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(EventHeaders.EVENT_TYPE, "PublicationStatus".getBytes(StandardCharsets.UTF_8));
    producer.send(record).get();
  }

  private static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(text, e);
    }
  }
}
