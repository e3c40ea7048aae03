package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.DestinationSimulator;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The production topology end to end: writer, relay and consumer as three processes with their
 * shipped property files, a real PostgreSQL and Kafka, and the destination simulator.
 */
@HeraldIntegrationTest
class PipelineIT {

  @Test
  void shouldTurnEveryIntentIntoExactlyOneRemoteArticleAcrossTheThreeProcesses(StackContext stack)
      throws Exception {
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = TestPipelines.settings(stack, simulator, "pipeline-it-logs");

      Scenario.Outcome outcome;
      try (Pipeline pipeline = Pipeline.start(settings)) {
        outcome = new Scenario(pipeline, simulator, System.out).run(Duration.ofSeconds(90));
        awaitEachProcessConnectedWithItsOwnRole(stack);
        // The DLQ counter registers with its first record: plant one so the scrape has it.
        deadLetterOne(stack.bootstrapServers(), settings.publicationTopic());
        awaitMetricsNamedByTheOpsFiles(pipeline);
        Optional<Path> prometheus = RealPrometheus.binary();
        if (prometheus.isPresent()) {
          awaitPrometheusScrapingAndEvaluating(pipeline, prometheus.get());
        } else {
          System.out.println(
              "prometheus is not on the PATH: skipping the real-Prometheus check (install"
                  + " Debian's 'prometheus' package, or run .ci/run as root, to run it)");
        }
      }

      assertThat(outcome.statuses()).containsExactly(201, 200, 409, 201, 201);
      assertThat(outcome.jobIds().get(1)).isEqualTo(outcome.jobIds().get(0));
      assertThat(outcome.articles()).hasSize(Scenario.EXPECTED_ARTICLES);
      assertThat(outcome.articlesPerReference().values()).containsOnly(1);
      assertThat(outcome.publishedEvents()).hasSize(Scenario.EXPECTED_ARTICLES);
      String firstRemoteId =
          outcome.publishedEvents().stream()
              .filter(e -> e.path("jobId").asText().equals(outcome.jobIds().getFirst()))
              .map(e -> e.path("remoteId").asText())
              .findFirst()
              .orElseThrow();
      assertThat(outcome.firstJob().path("status").asText()).isEqualTo("PUBLISHED");
      assertThat(outcome.firstJob().path("remoteId").asText()).isEqualTo(firstRemoteId);
    }
  }

  /**
   * Every session the three processes hold on their database is their own role's (the shipped
   * property files name them; {@link Pipeline} sets them up and migrates as herald_migrator): the
   * writer's pool as herald_writer, the consumer's as herald_consumer, the relay's connections and
   * the walsender streaming the slot as herald_relay, and nobody else (the migrations' connections
   * closed after them).
   */
  private static void awaitEachProcessConnectedWithItsOwnRole(StackContext stack) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Map<String, Set<String>> usersByApplication = new TreeMap<>();
              Set<String> users = new TreeSet<>();
              String slotReader;
              try (Connection connection = stack.dataSource().getConnection()) {
                try (PreparedStatement sessions =
                    connection.prepareStatement(
                        "SELECT application_name, usename FROM pg_stat_activity"
                            + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
                  sessions.setString(1, stack.database());
                  try (ResultSet rows = sessions.executeQuery()) {
                    while (rows.next()) {
                      usersByApplication
                          .computeIfAbsent(rows.getString(1), a -> new TreeSet<>())
                          .add(rows.getString(2));
                      users.add(rows.getString(2));
                    }
                  }
                }
                try (PreparedStatement reader =
                    connection.prepareStatement(
                        "SELECT a.usename FROM pg_replication_slots s"
                            + " JOIN pg_stat_activity a ON a.pid = s.active_pid"
                            + " WHERE s.slot_name = ?")) {
                  reader.setString(1, stack.slot());
                  try (ResultSet rows = reader.executeQuery()) {
                    slotReader = rows.next() ? rows.getString(1) : null;
                  }
                }
              }
              assertThat(users)
                  .as(
                      "users of the sessions on the database, by application %s",
                      usersByApplication)
                  .containsExactlyInAnyOrder("herald_writer", "herald_consumer", "herald_relay");
              assertThat(usersOf(usersByApplication, "herald-writer"))
                  .containsExactly("herald_writer");
              assertThat(usersOf(usersByApplication, "herald-consumer"))
                  .containsExactly("herald_consumer");
              assertThat(usersOf(usersByApplication, "herald-relay")).containsOnly("herald_relay");
              assertThat(slotReader).isEqualTo("herald_relay");
            });
  }

  private static Set<String> usersOf(Map<String, Set<String>> usersByApplication, String prefix) {
    Set<String> users = new TreeSet<>();
    usersByApplication.forEach(
        (application, names) -> {
          if (application.startsWith(prefix)) {
            users.addAll(names);
          }
        });
    return users;
  }

  /**
   * A real Prometheus, loading {@code ops/prometheus/alerts.yml}, scrapes the three processes under
   * the job names of {@code ops/prometheus/prometheus.yml}, sees the one streaming relay, and
   * evaluates every rule without an error.
   */
  private static void awaitPrometheusScrapingAndEvaluating(Pipeline pipeline, Path binary)
      throws Exception {
    Path rules = OpsFiles.prometheusDir().resolve("alerts.yml").toAbsolutePath();
    Path workDir = Files.createTempDirectory(Path.of("target"), "pipeline-it-prometheus-");
    try (RealPrometheus prometheus =
        RealPrometheus.start(binary, pipeline.metricsUris(), rules, workDir.toAbsolutePath())) {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                Map<String, String> upByJob = new TreeMap<>();
                for (JsonNode series : prometheus.query("up")) {
                  upByJob.put(
                      series.path("metric").path("job").asText(),
                      series.path("value").path(1).asText());
                }
                assertThat(upByJob)
                    .containsExactlyInAnyOrderEntriesOf(
                        Map.of("herald-writer", "1", "herald-relay", "1", "herald-consumer", "1"));
                assertThat(prometheus.query("herald_relay_streaming == 1")).hasSize(1);
                List<String> evaluated = new ArrayList<>();
                List<String> unhealthy = new ArrayList<>();
                for (JsonNode group : prometheus.rules().path("groups")) {
                  for (JsonNode rule : group.path("rules")) {
                    evaluated.add(rule.path("name").asText());
                    if (!rule.path("health").asText().equals("ok")) {
                      unhealthy.add(
                          rule.path("name").asText()
                              + ": "
                              + rule.path("health").asText()
                              + " "
                              + rule.path("lastError").asText());
                    }
                  }
                }
                assertThat(evaluated).hasSizeGreaterThanOrEqualTo(10);
                assertThat(unhealthy).as("rules not evaluated cleanly").isEmpty();
              });
    }
  }

  /** A record without the {@code id} header: the consumer dead-letters it ({@code missing_id}). */
  private static void deadLetterOne(String bootstrapServers, String topic) throws Exception {
    Map<String, Object> props =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      producer
          .send(new ProducerRecord<>(topic, "not an event".getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Every {@code herald_*} and {@code kafka_*} name in {@code ops/prometheus/alerts.yml} and {@code
   * ops/grafana/herald.json} is exported by one of the three running processes (as a sample name,
   * or a family with its {@code _total}, {@code _bucket}, {@code _count} or {@code _sum} samples),
   * so no rule or panel watches a series that never exists.
   */
  private static void awaitMetricsNamedByTheOpsFiles(Pipeline pipeline) throws IOException {
    Set<String> alerts = OpsFiles.metricNames(OpsFiles.prometheusDir().resolve("alerts.yml"));
    Set<String> dashboard = OpsFiles.metricNames(OpsFiles.dashboard());
    assertThat(alerts).isNotEmpty();
    assertThat(dashboard).isNotEmpty();
    Set<String> named = new TreeSet<>(alerts);
    named.addAll(dashboard);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Set<String> scraped = new TreeSet<>();
              for (URI metrics : pipeline.metricsUris().values()) {
                scraped.addAll(MetricsScrape.names(metrics));
              }
              Set<String> missing = new TreeSet<>(named);
              missing.removeIf(name -> MetricsScrape.exports(scraped, name));
              assertThat(missing)
                  .as("metric names in alerts.yml or herald.json that no process exports")
                  .isEmpty();
            });
  }
}
