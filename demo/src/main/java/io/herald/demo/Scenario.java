package io.herald.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.EventTypes;
import io.herald.common.json.Json;
import io.herald.devstack.simulator.Article;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the demo shows, and what the end-to-end test asserts: intents go in over HTTP, replays and
 * conflicts are answered without new work, and every intent becomes exactly one remote article.
 */
final class Scenario {

  static final String TOKEN = "demo-token-t1";

  /** One publication intent and the status the writer is expected to answer it with. */
  record Step(String label, String body, int expectedStatus) {}

  /** What happened: per step the status and job id, then the articles and the status events. */
  record Outcome(
      List<Integer> statuses,
      List<String> jobIds,
      List<Article> articles,
      Map<String, Integer> articlesPerReference,
      List<JsonNode> publishedEvents,
      JsonNode firstJob) {}

  static final List<Step> STEPS =
      List.of(
          new Step(
              "article a-84 revision r-1 to dest-a (idempotent, lookup)",
              "{\"articleId\":\"a-84\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\","
                  + "\"content\":{\"title\":\"Herald ships\",\"body\":\"Exactly once, in effect.\"}}",
              201),
          new Step(
              "the same request again, keys reordered (a client retry)",
              "{ \"destination\":\"dest-a\", \"revisionId\":\"r-1\", \"articleId\":\"a-84\","
                  + " \"content\":{ \"body\":\"Exactly once, in effect.\", \"title\":\"Herald ships\" } }",
              200),
          new Step(
              "the same key with other content (a caller bug)",
              "{\"articleId\":\"a-84\",\"revisionId\":\"r-1\",\"destination\":\"dest-a\","
                  + "\"content\":{\"title\":\"Something else\"}}",
              409),
          new Step(
              "revision r-2 of the same article to dest-a",
              "{\"articleId\":\"a-84\",\"revisionId\":\"r-2\",\"destination\":\"dest-a\","
                  + "\"content\":{\"title\":\"Herald ships, corrected\"}}",
              201),
          new Step(
              "revision r-1 to dest-b (no idempotency, no lookup)",
              "{\"articleId\":\"a-84\",\"revisionId\":\"r-1\",\"destination\":\"dest-b\","
                  + "\"content\":{\"title\":\"Herald ships\",\"body\":\"Exactly once, in effect.\"}}",
              201));

  /** Intents that must each end as one remote article. */
  static final int EXPECTED_ARTICLES = 3;

  private final HttpClient http = HttpClient.newHttpClient();
  private final Pipeline pipeline;
  private final URI writer;
  private final DestinationSimulator simulator;
  private final String bootstrapServers;
  private final String deliveryTopic;
  private final PrintStream out;

  Scenario(Pipeline pipeline, DestinationSimulator simulator, PrintStream out) {
    this.pipeline = pipeline;
    this.writer = pipeline.writerUri();
    this.simulator = simulator;
    this.bootstrapServers = pipeline.settings().bootstrapServers();
    this.deliveryTopic = pipeline.settings().deliveryTopic();
    this.out = out;
  }

  Outcome run(Duration timeout) throws IOException, InterruptedException {
    List<Integer> statuses = new ArrayList<>();
    List<String> jobIds = new ArrayList<>();
    for (Step step : STEPS) {
      HttpResponse<String> response = post(step.body());
      JsonNode answer = Json.mapper().readTree(response.body());
      String jobId = answer.path("jobId").asText(answer.path("id").asText(""));
      statuses.add(response.statusCode());
      jobIds.add(jobId);
      out.printf(
          "  POST %-58s -> %d %s%n",
          step.label(),
          response.statusCode(),
          response.statusCode() < 300 ? "job " + jobId : answer.path("error").asText());
    }
    out.println();
    out.println("Waiting for the relay and the consumer to publish...");
    List<JsonNode> published = awaitPublishedEvents(EXPECTED_ARTICLES, timeout);
    for (JsonNode event : published) {
      out.printf(
          "  %s %s/%s -> %s remote id %s%n",
          EventTypes.PUBLICATION_PUBLISHED,
          event.path("articleId").asText(),
          event.path("revisionId").asText(),
          event.path("destination").asText(),
          event.path("remoteId").asText());
    }
    List<Article> articles = simulator.articles();
    Map<String, Integer> perReference = new HashMap<>();
    for (Article article : articles) {
      perReference.merge(String.valueOf(article.externalReference()), 1, Integer::sum);
    }
    out.println();
    out.printf(
        "The destinations hold %d articles for %d intents; articles per intent: %s%n",
        articles.size(), EXPECTED_ARTICLES, perReference.values());
    JsonNode firstJob = awaitJobStatus(jobIds.getFirst(), "PUBLISHED", timeout);
    out.printf(
        "GET /v1/publications/%s -> status %s, remote id %s (the writer's view of the status events)%n",
        jobIds.getFirst(), firstJob.path("status").asText(), firstJob.path("remoteId").asText());
    return new Outcome(statuses, jobIds, articles, perReference, published, firstJob);
  }

  private HttpResponse<String> post(String body) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(writer.resolve("/v1/publications"))
            .header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json")
            .header("traceparent", "00-" + traceId() + "-00f067aa0ba902b7-01")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .timeout(Duration.ofSeconds(10))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** Polls the writer's job view until it shows {@code status} or the time is up. */
  private JsonNode awaitJobStatus(String jobId, String status, Duration timeout)
      throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    JsonNode job = Json.mapper().createObjectNode();
    while (Instant.now().isBefore(deadline)) {
      pipeline.requireAllRunning();
      HttpRequest request =
          HttpRequest.newBuilder(writer.resolve("/v1/publications/" + jobId))
              .header("Authorization", "Bearer " + TOKEN)
              .timeout(Duration.ofSeconds(10))
              .GET()
              .build();
      job = Json.mapper().readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
      if (status.equals(job.path("status").asText())) {
        return job;
      }
      Thread.sleep(200); // the demo polls a view that follows Kafka; there is nothing to wait on
    }
    return job;
  }

  private static String traceId() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  /** Reads the status events from the start of the topic until enough publications are seen. */
  private List<JsonNode> awaitPublishedEvents(int expected, Duration timeout) throws IOException {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<JsonNode> published = new ArrayList<>();
    Instant deadline = Instant.now().plus(timeout);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(deliveryTopic, Duration.ofSeconds(30)).stream()
              .map(info -> new TopicPartition(info.topic(), info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (published.size() < expected && Instant.now().isBefore(deadline)) {
        pipeline.requireAllRunning();
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          JsonNode event = Json.mapper().readTree(record.value());
          if (EventTypes.PUBLICATION_PUBLISHED.equals(eventType(record, event))) {
            published.add(event);
          }
        }
      }
    }
    return published;
  }

  private static String eventType(ConsumerRecord<String, String> record, JsonNode event) {
    var header = record.headers().lastHeader("eventType");
    if (header != null) {
      return new String(header.value(), StandardCharsets.UTF_8);
    }
    return event.path("eventType").asText();
  }
}
