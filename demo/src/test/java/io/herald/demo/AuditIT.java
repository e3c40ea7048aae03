package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.HeraldCommandLine;
import io.herald.devstack.simulator.DestinationSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code herald audit} against the three real processes: a clean run passes, then each violation
 * the audit claims to detect is planted on purpose and must be named in its output.
 */
@HeraldIntegrationTest
class AuditIT {

  private static final int INTENTS = 40;
  private static final HeraldCommandLine HERALD =
      new HeraldCommandLine(Path.of("target", "audit-it"), Duration.ofMinutes(3));

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldPassACleanRunAndNameEveryPlantedViolation(StackContext stack) throws Exception {
    try (DestinationSimulator simulator = Showcase.startSimulator()) {
      PipelineSettings settings = TestPipelines.settings(stack, simulator, "audit-it-logs");
      String listing = simulator.baseUri() + "/admin/articles";
      try (Pipeline pipeline = Pipeline.start(settings)) {
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < INTENTS; i++) {
          String tenant = i % 2 == 0 ? "t1" : "t2";
          String destination = i % 4 < 2 ? "dest-a" : "dest-b";
          jobs.add(post(pipeline.writerUri(), tenant, "a-" + i, destination));
        }
        awaitAllPublished(stack, jobs);

        String[] audit = {
          "audit",
          "--config-dir",
          settings.configDir().toString(),
          "--remote-articles",
          "dest-a=" + listing,
          "--remote-articles",
          "dest-b=" + listing
        };
        HeraldCommandLine.Result clean = awaitCleanAudit(pipeline, audit);
        assertThat(clean.out())
            .contains("tenant t1: 20 jobs", "tenant t2: 20 jobs")
            .contains("audit: lost=0 duplicate_remote_articles=0");

        Planted planted = plant(stack, jobs, simulator);
        HeraldCommandLine.Result found = HERALD.run(pipeline.cliEnv(), audit);
        assertThat(found.exitCode()).as(found.toString()).isEqualTo(1);
        assertThat(found.out())
            .as(found.toString())
            .contains("VIOLATION lost: event consumed but no delivery: 1")
            .contains("job " + planted.deletedDeliveryJob())
            .contains("VIOLATION lost: job without its event in Kafka: 1")
            .contains("job " + planted.jobWithoutEvent())
            .contains("VIOLATION duplicate remote articles for one intent: 1")
            .contains(planted.duplicatedKey() + " (delivery")
            .contains("VIOLATION stuck: 1")
            .contains(planted.stuckKey())
            .contains("in DISPATCHING")
            .contains("VIOLATION payload conflict: 1")
            .contains(planted.conflictKey())
            .contains("the delivery's payload differs from the job")
            .containsPattern("audit: lost=2 duplicate_remote_articles=1 .* conflicts=1 stuck=1 ")
            .endsWith("-> VIOLATED (5)" + System.lineSeparator());

        HeraldCommandLine.Result json = HERALD.run(pipeline.cliEnv(), append(audit, "--json"));
        assertThat(json.exitCode()).as(json.toString()).isEqualTo(1);
        JsonNode report = Json.mapper().readTree(json.out());
        assertThat(report.path("violated").asBoolean()).isTrue();
        assertThat(report.path("overall").path("lost").asLong()).isEqualTo(2);
        assertThat(report.path("overall").path("stuckByState").path("DISPATCHING").asLong())
            .isEqualTo(1);
        assertThat(report.path("tenants").has("t1")).isTrue();

        HeraldCommandLine.Result t2Only =
            HERALD.run(pipeline.cliEnv(), append(audit, "--tenant", planted.cleanTenant()));
        assertThat(t2Only.exitCode()).as(t2Only.toString()).isZero();
        assertThat(t2Only.out()).contains("tenant " + planted.cleanTenant());
        assertThat(t2Only.out()).doesNotContain("tenant t1:");
      }
    }
  }

  /** Which keys the plants touched, to find them named in the audit's output. */
  private record Planted(
      UUID deletedDeliveryJob,
      UUID jobWithoutEvent,
      String duplicatedKey,
      String stuckKey,
      String conflictKey,
      String cleanTenant) {}

  /**
   * Five violations, all in tenant t1 (t2 stays clean): a delivery row deleted, a job whose outbox
   * row never reached Kafka (committed without one, an hour ago), a second remote article for an
   * intent at the key-ignoring destination, a delivery stuck in DISPATCHING under a live lease, a
   * delivery whose payload differs from its job's.
   */
  private Planted plant(StackContext stack, List<String> jobs, DestinationSimulator simulator)
      throws Exception {
    try (Connection db = stack.dataSource().getConnection();
        Statement statement = db.createStatement()) {
      // Jobs i = 0, 4, 8... are t1/dest-a; i = 2, 6, 10... are t1/dest-b.
      UUID deleted = UUID.fromString(jobs.get(0));
      statement.executeUpdate("DELETE FROM consumer.delivery WHERE job_id = '" + deleted + "'");
      String duplicated = keyOf(db, jobs.get(2));
      String reference = idempotencyKeyOf(db, jobs.get(2));
      HttpResponse<String> planted =
          http.send(
              HttpRequest.newBuilder(URI.create(simulator.baseUri() + "/dest-b/articles"))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"externalReference\":\"" + reference + "\"}", StandardCharsets.UTF_8))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(planted.statusCode()).isEqualTo(201);
      String stuck = keyOf(db, jobs.get(4));
      statement.executeUpdate(
          "UPDATE consumer.delivery SET state = 'DISPATCHING', claim_owner = 'planted',"
              + " lease_until = now() + interval '1 hour', updated_at = now() - interval '1 hour'"
              + " WHERE job_id = '"
              + jobs.get(4)
              + "'");
      String conflict = keyOf(db, jobs.get(6));
      statement.executeUpdate(
          "UPDATE consumer.delivery SET payload_hash = repeat('0', 64) WHERE job_id = '"
              + jobs.get(6)
              + "'");
      UUID withoutEvent = UUID.randomUUID();
      try (PreparedStatement insert =
          db.prepareStatement(
              "INSERT INTO writer.publication_job (id, tenant_id, article_id, revision_id,"
                  + " destination, idempotency_key, payload_hash, content, created_at, updated_at)"
                  + " VALUES (?, 't1', 'a-planted', 'r-1', 'dest-a', repeat('a', 64),"
                  + " repeat('b', 64), '{}', now() - interval '1 hour', now() - interval '1 hour')")) {
        insert.setObject(1, withoutEvent);
        insert.executeUpdate();
      }
      return new Planted(deleted, withoutEvent, duplicated, stuck, conflict, "t2");
    }
  }

  private static String keyOf(Connection db, String jobId) throws Exception {
    try (PreparedStatement query =
        db.prepareStatement(
            "SELECT tenant_id || '/' || article_id || '/' || revision_id || '/' || destination"
                + " FROM consumer.delivery WHERE job_id = ?")) {
      query.setObject(1, UUID.fromString(jobId));
      try (ResultSet row = query.executeQuery()) {
        assertThat(row.next()).isTrue();
        return row.getString(1);
      }
    }
  }

  private static String idempotencyKeyOf(Connection db, String jobId) throws Exception {
    try (PreparedStatement query =
        db.prepareStatement("SELECT idempotency_key FROM consumer.delivery WHERE job_id = ?")) {
      query.setObject(1, UUID.fromString(jobId));
      try (ResultSet row = query.executeQuery()) {
        assertThat(row.next()).isTrue();
        return row.getString(1);
      }
    }
  }

  /** Waits until the audit passes: the writer's view and the status events follow shortly. */
  private static HeraldCommandLine.Result awaitCleanAudit(Pipeline pipeline, String[] audit) {
    HeraldCommandLine.Result[] last = new HeraldCommandLine.Result[1];
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              last[0] = HERALD.run(pipeline.cliEnv(), append(audit, "--stuck-after", "0s"));
              assertThat(last[0].exitCode()).as(last[0].toString()).isZero();
              assertThat(last[0].out()).contains("status_view_lag=0 ");
            });
    return last[0];
  }

  private static void awaitAllPublished(StackContext stack, List<String> jobs) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              try (Connection db = stack.dataSource().getConnection();
                  Statement statement = db.createStatement();
                  ResultSet row =
                      statement.executeQuery(
                          "SELECT count(*) FROM consumer.delivery WHERE state = 'PUBLISHED'")) {
                row.next();
                assertThat(row.getInt(1)).isEqualTo(jobs.size());
              }
            });
  }

  private String post(URI writer, String tenant, String article, String destination)
      throws Exception {
    String body =
        "{\"articleId\":\""
            + article
            + "\",\"revisionId\":\"r-1\",\"destination\":\""
            + destination
            + "\",\"content\":{\"title\":\""
            + article
            + "\"}}";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(writer.resolve("/v1/publications"))
                .header("Authorization", "Bearer demo-token-" + tenant)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    JsonNode answer = Json.mapper().readTree(response.body());
    return answer.path("jobId").asText(answer.path("id").asText());
  }

  private static String[] append(String[] args, String... more) {
    String[] all = new String[args.length + more.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }
}
