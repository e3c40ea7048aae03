package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.ReceivedRequest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One OpenTelemetry trace from the client's POST to the destination (docs/design.md, "Tracing"):
 * the three processes run with {@code OTEL_TRACES_EXPORTER=logging-otlp}, so each logs its spans as
 * OTLP JSON lines, which this test reads back from the writer's and the consumer's log files. And
 * the control: without {@code OTEL_*}, the destination gets the client's trace context unchanged.
 */
@HeraldIntegrationTest
class TracingIT {

  /** OTLP's span kinds, as its JSON encoding writes them. */
  private static final int SERVER = 2;

  private static final int CLIENT = 3;
  private static final int CONSUMER = 5;

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String TRACESTATE = "herald=test";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final HttpClient http = HttpClient.newHttpClient();

  /** One simulator and one set of topics for the class: the two pipelines run one after another. */
  private static DestinationSimulator simulator;

  private static PipelineSettings settings;

  @BeforeAll
  static void startSimulator(StackContext stack) {
    simulator = Showcase.startSimulator();
    settings = TestPipelines.settings(stack, simulator, "tracing-it-logs");
  }

  @AfterAll
  static void stopSimulator() {
    simulator.close();
  }

  /** A span as the logging-otlp exporter wrote it. */
  private record LoggedSpan(
      String traceId, String spanId, String parentSpanId, String name, int kind, JsonNode json) {

    String attribute(String key) {
      for (JsonNode attribute : json.path("attributes")) {
        if (attribute.path("key").asText().equals(key)) {
          return attribute.path("value").path("stringValue").asText();
        }
      }
      return null;
    }
  }

  @Test
  void shouldCarryOneTraceFromThePostThroughOutboxAndKafkaToTheDestinationWhenTracingIsOn(
      StackContext stack) throws Exception {
    String traceId = randomHex(16);
    String clientParent = "00-" + traceId + "-" + randomHex(8) + "-01";
    try (Pipeline pipeline =
        Pipeline.start(
            settings,
            Map.of("OTEL_TRACES_EXPORTER", "logging-otlp", "OTEL_BSP_SCHEDULE_DELAY", "200"))) {
      String jobId = post(pipeline.writerUri(), "a-traced", clientParent);
      ReceivedRequest received = awaitReceived(simulator, traceId);
      String sent = received.header("traceparent").orElseThrow();

      Path logs = settings.logDir();
      List<LoggedSpan> writerSpans = new ArrayList<>();
      List<LoggedSpan> consumerSpans = new ArrayList<>();
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                writerSpans.clear();
                writerSpans.addAll(spans(logs.resolve("writer.log"), traceId));
                consumerSpans.clear();
                consumerSpans.addAll(spans(logs.resolve("consumer.log"), traceId));
                assertThat(writerSpans).extracting(LoggedSpan::name).contains("outbox insert");
                assertThat(consumerSpans)
                    .extracting(LoggedSpan::name)
                    .contains("process delivery", "publish");
              });

      LoggedSpan server = only(writerSpans, SERVER, "POST publish");
      LoggedSpan insert = only(writerSpans, 1, "outbox insert");
      LoggedSpan processing = only(consumerSpans, CONSUMER, "process delivery");
      LoggedSpan call = only(consumerSpans, CLIENT, "publish");
      // The client's trace throughout, each span the child of the one before it.
      assertThat(server.parentSpanId()).isEqualTo(clientParent.substring(36, 52));
      assertThat(insert.parentSpanId()).isEqualTo(server.spanId());
      assertThat(insert.attribute("herald.job.id")).isEqualTo(jobId);
      assertThat(insert.attribute("herald.tenant")).isEqualTo("t1");
      String stored = "00-" + traceId + "-" + server.spanId() + "-01";
      assertThat(processing.parentSpanId()).isEqualTo(server.spanId());
      assertThat(call.parentSpanId()).isEqualTo(processing.spanId());
      assertThat(sent).isEqualTo("00-" + traceId + "-" + call.spanId() + "-01");
      assertThat(received.header("tracestate")).contains(TRACESTATE);
      // What rides between the processes: the outbox row and the Kafka record's headers.
      assertThat(outboxTraceparent(stack, jobId)).isEqualTo(stored);
      assertThat(kafkaTraceparents(settings, traceId)).containsOnly(stored);
    }
  }

  @Test
  void shouldForwardTheClientsTraceContextUnchangedWhenTracingIsOff(StackContext stack)
      throws Exception {
    String traceId = randomHex(16);
    String clientParent = "00-" + traceId + "-" + randomHex(8) + "-01";
    try (Pipeline pipeline = Pipeline.start(settings)) {
      String jobId = post(pipeline.writerUri(), "a-untraced", clientParent);
      ReceivedRequest received = awaitReceived(simulator, traceId);

      assertThat(received.header("traceparent")).contains(clientParent);
      assertThat(received.header("tracestate")).contains(TRACESTATE);
      assertThat(outboxTraceparent(stack, jobId)).isEqualTo(clientParent);
      assertThat(spans(settings.logDir().resolve("consumer.log"), traceId)).isEmpty();
    }
  }

  /** POSTs one intent to dest-a with the client's trace context; returns its job id. */
  private String post(URI writer, String articleId, String traceparent)
      throws IOException, InterruptedException {
    String body =
        "{\"articleId\":\""
            + articleId
            + "\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\",\"content\":{\"title\":\"T\"}}";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(writer.resolve("/v1/publications"))
                .header("Authorization", "Bearer " + Scenario.TOKEN)
                .header("Content-Type", "application/json")
                .header("traceparent", traceparent)
                .header("tracestate", TRACESTATE)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    JsonNode answer = Json.mapper().readTree(response.body());
    return answer.path("jobId").asText(answer.path("id").asText(""));
  }

  /** The create request the destination received in trace {@code traceId}, once it came. */
  private static ReceivedRequest awaitReceived(DestinationSimulator simulator, String traceId) {
    return await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                simulator.receivedRequests().stream()
                    .filter(request -> request.method().equals("POST"))
                    .filter(
                        request ->
                            request.header("traceparent").orElse("").contains("-" + traceId + "-"))
                    .findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  /**
   * The spans of trace {@code traceId} in a log file: every line carrying an OTLP JSON batch (the
   * logging-otlp exporter's, through java.util.logging) read from its first brace.
   */
  private static List<LoggedSpan> spans(Path log, String traceId) throws IOException {
    List<LoggedSpan> spans = new ArrayList<>();
    if (!Files.exists(log)) {
      return spans;
    }
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      int start = line.indexOf('{');
      if (start < 0 || !line.contains("\"scopeSpans\"")) {
        continue;
      }
      JsonNode batch = Json.mapper().readTree(line.substring(start));
      for (JsonNode scope : batch.path("scopeSpans")) {
        for (JsonNode span : scope.path("spans")) {
          if (span.path("traceId").asText().equals(traceId)) {
            spans.add(
                new LoggedSpan(
                    span.path("traceId").asText(),
                    span.path("spanId").asText(),
                    span.path("parentSpanId").asText(""),
                    span.path("name").asText(),
                    span.path("kind").asInt(),
                    span));
          }
        }
      }
    }
    return spans;
  }

  private static LoggedSpan only(List<LoggedSpan> spans, int kind, String name) {
    List<LoggedSpan> named =
        spans.stream().filter(s -> s.name().equals(name) && s.kind() == kind).toList();
    assertThat(named).as("spans named %s of kind %d in %s", name, kind, spans).hasSize(1);
    return named.getFirst();
  }

  private static String outboxTraceparent(StackContext stack, String jobId) throws Exception {
    try (Connection connection = stack.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT trace_parent FROM writer.outbox WHERE payload ->> 'jobId' = ?")) {
      select.setString(1, jobId);
      try (ResultSet rows = select.executeQuery()) {
        assertThat(rows.next()).as("outbox row of job %s", jobId).isTrue();
        return rows.getString(1);
      }
    }
  }

  /** The traceparent headers of the publication topic's records in trace {@code traceId}. */
  private static List<String> kafkaTraceparents(PipelineSettings settings, String traceId) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> found = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(settings.publicationTopic(), Duration.ofSeconds(30)).stream()
              .map(info -> new TopicPartition(info.topic(), info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> record :
                    consumer.poll(Duration.ofMillis(500))) {
                  Header header = record.headers().lastHeader("traceparent");
                  String value =
                      header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
                  if (value.contains("-" + traceId + "-")) {
                    found.add(value);
                  }
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
              });
    }
    assertThat(found).as("records of trace %s", traceId).isNotEmpty();
    return found;
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    RANDOM.nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
