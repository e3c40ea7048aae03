package io.herald.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.OpsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shared HTTP layer on a real Jetty server: routing, bounded bodies, one error mapping. */
class RouterTest {

  private static final int MAX_BODY = 64;

  /** A request body of the test route. */
  record Note(String text) {}

  /** An answer of the test route, written by Jackson. */
  record Echo(UUID id, String text, List<String> tags) {}

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private PrometheusMeterRegistry registry;
  private OpsServer server;

  @BeforeEach
  void start() {
    registry = Metrics.newRegistry("test");
    Router api =
        Router.builder("test API")
            .guard(
                request -> {
                  if (!"Bearer s3cret".equals(request.getHeaders().get("Authorization"))) {
                    throw HttpProblem.unauthorized("token required");
                  }
                })
            .get(
                "/v1/notes/{id}",
                call -> Router.Reply.ok(new Echo(call.uuid("id"), "x", List.of())))
            .post(
                "/v1/notes/{id}",
                call ->
                    Router.Reply.json(
                        201,
                        new Echo(
                            call.uuid("id"), call.body(MAX_BODY, Note.class).text(), List.of("a"))))
            .post(
                "/v1/broken/sql",
                call -> {
                  throw new SQLException(
                      "ERROR: relation \"consumer.secret_table\" does not exist", "42P01");
                })
            .post(
                "/v1/broken/down",
                call -> {
                  throw new SQLException(
                      "Connection to db.internal:5432 refused (password=hunter2)", "08001");
                })
            .post(
                "/v1/broken/bug",
                call -> {
                  throw new IllegalStateException("boom at Secret.java:42");
                })
            .build();
    server = OpsServer.builder("test", registry).host("127.0.0.1").port(0).handler(api).start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    registry.close();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(
        request.header("Authorization", "Bearer s3cret").timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(server.uri().resolve(path));
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return Json.mapper().readTree(response.body());
  }

  @Test
  void shouldRouteByTemplateAndWriteRecordsAsJson() throws Exception {
    UUID id = UUID.randomUUID();
    HttpResponse<String> response =
        send(at("/v1/notes/" + id).POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}")));

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.headers().firstValue("cache-control")).hasValue("no-store");
    assertThat(json(response).get("id").asText()).isEqualTo(id.toString());
    assertThat(json(response).get("text").asText()).isEqualTo("hi");
    assertThat(json(response).get("tags").get(0).asText()).isEqualTo("a");
  }

  @Test
  void shouldAnswer413ForABodyOverTheBoundAnnouncedOrNot() throws Exception {
    String big = "{\"text\":\"" + "x".repeat(MAX_BODY) + "\"}";
    HttpResponse<String> announced =
        send(at("/v1/notes/" + UUID.randomUUID()).POST(HttpRequest.BodyPublishers.ofString(big)));
    // No Content-Length: the bound is found while reading.
    HttpResponse<String> streamed =
        send(
            at("/v1/notes/" + UUID.randomUUID())
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes()))));

    for (HttpResponse<String> response : List.of(announced, streamed)) {
      assertThat(response.statusCode()).isEqualTo(413);
      assertThat(json(response).get("error").asText()).isEqualTo("payload_too_large");
    }
  }

  @Test
  void shouldAnswer400ForMalformedJsonWithoutEchoingIt() throws Exception {
    HttpResponse<String> response =
        send(
            at("/v1/notes/" + UUID.randomUUID())
                .POST(HttpRequest.BodyPublishers.ofString("{\"text\": tr0ub4dor}")));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).get("error").asText()).isEqualTo("malformed_json");
    assertThat(response.body()).doesNotContain("tr0ub4dor").doesNotContain("jackson");
  }

  @Test
  void shouldAnswer404ForAMalformedIdAsForAnUnknownOne() throws Exception {
    HttpResponse<String> response = send(at("/v1/notes/not-a-uuid"));

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).get("error").asText()).isEqualTo("not_found");
  }

  @Test
  void shouldNeverLeakSqlOrExceptionTextToTheClient() throws Exception {
    HttpResponse<String> permanent =
        send(at("/v1/broken/sql").POST(HttpRequest.BodyPublishers.noBody()));
    HttpResponse<String> unavailable =
        send(at("/v1/broken/down").POST(HttpRequest.BodyPublishers.noBody()));
    HttpResponse<String> bug = send(at("/v1/broken/bug").POST(HttpRequest.BodyPublishers.noBody()));

    assertThat(permanent.statusCode()).isEqualTo(500);
    assertThat(json(permanent).get("error").asText()).isEqualTo("internal_error");
    assertThat(unavailable.statusCode()).isEqualTo(503);
    assertThat(json(unavailable).get("error").asText()).isEqualTo("database_unavailable");
    assertThat(unavailable.headers().firstValue("retry-after")).hasValue("1");
    assertThat(permanent.headers().firstValue("retry-after")).isEmpty();
    assertThat(bug.statusCode()).isEqualTo(500);
    for (HttpResponse<String> response : List.of(permanent, unavailable, bug)) {
      assertThat(response.body())
          .doesNotContain("relation")
          .doesNotContain("secret")
          .doesNotContain("hunter2")
          .doesNotContain("5432")
          .doesNotContain("SQLException")
          .doesNotContain("boom")
          .doesNotContain(".java")
          .contains("reference");
    }
  }

  @Test
  void shouldAnswer405WithAllowForAnotherMethodAndServeHeadLikeGet() throws Exception {
    UUID id = UUID.randomUUID();
    HttpResponse<String> delete = send(at("/v1/notes/" + id).DELETE());
    HttpResponse<String> head =
        send(at("/v1/notes/" + id).method("HEAD", HttpRequest.BodyPublishers.noBody()));

    assertThat(delete.statusCode()).isEqualTo(405);
    assertThat(delete.headers().firstValue("allow")).hasValue("GET, POST, HEAD");
    assertThat(json(delete).get("error").asText()).isEqualTo("method_not_allowed");
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
  }

  @Test
  void shouldRefuseWhatTheGuardRefusesBeforeTheRouteRuns() throws Exception {
    HttpResponse<String> response =
        client.send(
            at("/v1/notes/" + UUID.randomUUID()).header("Authorization", "Bearer wrong").build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("www-authenticate"))
        .hasValue("Bearer realm=\"herald\"");
    assertThat(json(response).get("error").asText()).isEqualTo("unauthorized");
  }

  @Test
  void shouldDeclinePathsWithoutARouteSoTheServerAnswersJson404() throws Exception {
    HttpResponse<String> response = send(at("/v1/nothing"));

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).get("error").asText()).isEqualTo("not_found");
  }
}
