package io.herald.consumer.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.delivery.Deliveries;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.consumer.delivery.StatusEvents;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.DestinationProfile;
import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.consumer.pause.Pauses;
import io.herald.consumer.policy.DeliveryPolicy;
import io.herald.consumer.reconcile.OperatorActions;
import io.herald.runtime.metrics.Metrics;
import io.herald.runtime.ops.OpsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator API on the real Router and a real Jetty, over the real {@link DeliveryViews} and
 * {@link OperatorActions} whose database is a hand-written {@link DataSource} that fails the way a
 * broken one does. What needs a working database (200, 404 unknown, 409) is in
 * ConsumerOperationsIT.
 */
class OperatorApiHandlerTest {

  private static final String TOKEN = "op-token";
  private static final String ACTION =
      "{\"action\":\"RETRY\",\"actor\":\"eve\",\"reason\":\"vendor confirmed nothing arrived\"}";

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final FailingDataSource database = new FailingDataSource();
  private PrometheusMeterRegistry registry;
  private OpsServer server;

  @BeforeEach
  void start() {
    registry = Metrics.newRegistry("test");
    DeliveryPolicy policy =
        new DeliveryPolicy(3, Duration.ofSeconds(1), (attempt, retryAfter) -> Duration.ZERO);
    Deliveries deliveries =
        new Deliveries(
            database, new StatusEvents(Clock.systemUTC(), UUID::randomUUID, Duration.ZERO));
    server =
        OpsServer.builder("consumer", registry)
            .host("127.0.0.1")
            .port(0)
            .handler(
                OperatorApiHandler.create(
                    new DeliveryViews(database),
                    new OperatorActions(deliveries, policy, UUID::randomUUID),
                    destinations(),
                    "instance-1",
                    TOKEN))
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    registry.close();
  }

  @Test
  void shouldAnswer413WhenTheActionBodyIsOverTheBoundAnnouncedOrNot() throws Exception {
    String big =
        "{\"action\":\"RETRY\",\"actor\":\"eve\",\"reason\":\""
            + "x".repeat(OperatorApiHandler.MAX_BODY_BYTES)
            + "\"}";
    HttpResponse<String> announced =
        send(actions(UUID.randomUUID()).POST(HttpRequest.BodyPublishers.ofString(big)));
    // No Content-Length: the bound is found while reading.
    HttpResponse<String> streamed =
        send(
            actions(UUID.randomUUID())
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes()))));

    for (HttpResponse<String> response : List.of(announced, streamed)) {
      assertThat(response.statusCode()).isEqualTo(413);
      assertThat(json(response).get("error").asText()).isEqualTo("payload_too_large");
    }
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldNeverReturnSqlTextWhenTheDatabaseFails() throws Exception {
    database.failWith(
        new SQLException(
            "ERROR: relation \"consumer.delivery\" does not exist at db.internal:5432", "42P01"));
    List<HttpResponse<String>> permanent = everyRoute();
    database.failWith(
        new SQLException("Connection to db.internal:5432 refused (password=hunter2)", "08001"));
    List<HttpResponse<String>> unavailable = everyRoute();

    for (HttpResponse<String> response : permanent) {
      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(json(response).get("error").asText()).isEqualTo("internal_error");
    }
    for (HttpResponse<String> response : unavailable) {
      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(json(response).get("error").asText()).isEqualTo("database_unavailable");
      assertThat(response.headers().firstValue("retry-after")).isPresent();
    }
    for (HttpResponse<String> response : concat(permanent, unavailable)) {
      assertThat(response.body())
          .doesNotContain("relation")
          .doesNotContain("db.internal")
          .doesNotContain("5432")
          .doesNotContain("hunter2")
          .doesNotContain("SQLException")
          .contains("reference");
    }
    assertThat(database.connections).hasValue(6);
  }

  @Test
  void shouldAnswer404ForAMalformedIdLikeTheWriter() throws Exception {
    HttpResponse<String> get = send(at("/v1/deliveries/not-a-uuid"));
    HttpResponse<String> post =
        send(
            at("/v1/deliveries/not-a-uuid/actions")
                .POST(HttpRequest.BodyPublishers.ofString(ACTION)));

    for (HttpResponse<String> response : List.of(get, post)) {
      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(json(response).get("error").asText()).isEqualTo("not_found");
    }
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldAnswer400WhenTheStateOrLimitIsNotAValue() throws Exception {
    HttpResponse<String> state = send(at("/v1/deliveries?state=LOST"));
    HttpResponse<String> limit = send(at("/v1/deliveries?limit=many"));

    for (HttpResponse<String> response : List.of(state, limit)) {
      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(json(response).get("error").asText()).isEqualTo("invalid_request");
    }
    assertThat(json(state).get("message").asText()).contains("NEEDS_RECONCILIATION");
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldAnswer400WhenTheActionBodyIsInvalid() throws Exception {
    UUID id = UUID.randomUUID();
    List<String> invalid =
        List.of(
            "{\"action\":\"ABANDON\",\"actor\":\"eve\"}",
            "{\"action\":\"ABANDON\",\"actor\":\" \",\"reason\":\"r\"}",
            "{\"action\":\"DELETE\",\"actor\":\"eve\",\"reason\":\"r\"}",
            "{\"actor\":\"eve\",\"reason\":\"r\"}",
            "{\"action\":\"MARK_PUBLISHED\",\"actor\":\"eve\",\"reason\":\"r\"}",
            "{\"action\":\"RETRY\",\"actor\":7,\"reason\":\"r\"}",
            "[\"RETRY\"]",
            "{\"action\":",
            "");

    for (String body : invalid) {
      HttpResponse<String> response =
          send(actions(id).POST(HttpRequest.BodyPublishers.ofString(body)));
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      assertThat(json(response).get("error").asText())
          .as(body)
          .isIn("invalid_request", "malformed_json");
    }
    assertThat(database.connections).hasValue(0);
  }

  /** One configured destination, {@code dest-a}, over the failing database. */
  private DestinationControl destinations() {
    DestinationConfig config =
        new DestinationConfig(
            "dest-a",
            URI.create("http://dest-a.invalid"),
            DestinationProfile.Preset.NONE.profile(),
            Duration.ofMillis(100),
            Duration.ofMillis(400),
            2,
            Optional.empty());
    return new DestinationControl(
        Map.of("dest-a", config),
        Map.of("dest-a", new CircuitBreaker(BreakerSettings.DEFAULT, Clock.systemUTC())),
        new Pauses(
            database, Duration.ofSeconds(1), System::nanoTime, new ConsumerMetrics(registry)),
        database);
  }

  @Test
  void shouldAnswer404ForAnUnknownDestinationWithoutReadingTheBody() throws Exception {
    HttpResponse<String> pause =
        send(
            at("/v1/destinations/dest-x/pause")
                .POST(HttpRequest.BodyPublishers.ofString("{\"actor\":\"eve\",\"reason\":\"r\"}")));
    // On a connection of its own: the server may close the first one after answering without
    // reading its body (when the body had not all arrived), and the client would reuse it and
    // read nothing.
    HttpResponse<String> resume;
    try (HttpClient another = HttpClient.newHttpClient()) {
      resume =
          another.send(
              at("/v1/destinations/dest-x/resume")
                  .header("Authorization", "Bearer " + TOKEN)
                  .timeout(Duration.ofSeconds(5))
                  .POST(HttpRequest.BodyPublishers.ofString(""))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    }

    for (HttpResponse<String> response : List.of(pause, resume)) {
      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(json(response).get("error").asText()).isEqualTo("not_found");
      assertThat(json(response).get("message").asText()).contains("dest-x");
    }
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldAnswer400Or413WhenAPauseBodyIsInvalidOrTooLarge() throws Exception {
    List<String> invalid =
        List.of(
            "{\"actor\":\"eve\"}",
            "{\"actor\":\" \",\"reason\":\"r\"}",
            "{\"reason\":\"r\"}",
            "[\"eve\"]",
            "{\"actor\":",
            "");
    for (String body : invalid) {
      HttpResponse<String> response =
          send(at("/v1/destinations/dest-a/pause").POST(HttpRequest.BodyPublishers.ofString(body)));
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      assertThat(json(response).get("error").asText())
          .as(body)
          .isIn("invalid_request", "malformed_json");
    }
    String big =
        "{\"actor\":\"eve\",\"reason\":\"" + "x".repeat(OperatorApiHandler.MAX_BODY_BYTES) + "\"}";
    HttpResponse<String> tooLarge =
        send(at("/v1/destinations/dest-a/resume").POST(HttpRequest.BodyPublishers.ofString(big)));

    assertThat(tooLarge.statusCode()).isEqualTo(413);
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldNeverReturnSqlTextWhenTheDatabaseFailsOnADestinationRoute() throws Exception {
    database.failWith(
        new SQLException(
            "ERROR: relation \"consumer.destination_pause\" does not exist at db.internal:5432",
            "42P01"));
    List<HttpResponse<String>> responses =
        List.of(
            send(at("/v1/destinations")),
            send(
                at("/v1/destinations/dest-a/pause")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"actor\":\"eve\",\"reason\":\"r\"}"))));

    for (HttpResponse<String> response : responses) {
      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(response.body()).doesNotContain("destination_pause").doesNotContain("db.internal");
    }
  }

  @Test
  void shouldAnswer401WithABearerChallengeWithoutTheToken() throws Exception {
    HttpResponse<String> none =
        client.send(at("/v1/deliveries").build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> wrong =
        client.send(
            at("/v1/deliveries").header("Authorization", "Bearer op-tokem").build(),
            HttpResponse.BodyHandlers.ofString());

    for (HttpResponse<String> response : List.of(none, wrong)) {
      assertThat(response.statusCode()).isEqualTo(401);
      assertThat(json(response).get("error").asText()).isEqualTo("unauthorized");
      assertThat(response.headers().firstValue("www-authenticate"))
          .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Bearer"));
    }
    assertThat(database.connections).hasValue(0);
  }

  @Test
  void shouldWriteADeliveryWithTheFieldsOfTheTreeItReplaces() throws Exception {
    UUID id = UUID.fromString("5f0c6a52-4c5e-4a8e-9d1e-2b6f1d2f8a01");
    UUID jobId = UUID.fromString("0a7e5c3b-9f2d-4e1a-8b6c-3d4e5f6a7b8c");
    DeliveryView view =
        new DeliveryView(
            id,
            17,
            jobId,
            UUID.randomUUID(),
            "t1",
            "a-1",
            "r-1",
            "dest",
            "idem-1",
            "hash",
            DeliveryState.NEEDS_RECONCILIATION,
            2,
            9,
            "owner",
            null,
            "timeout",
            Instant.parse("2026-12-01T10:00:00.123456Z"),
            null,
            Instant.parse("2026-12-01T10:00:05Z"));

    assertThat(Json.mapper().writeValueAsString(OperatorApiHandler.DeliveryBody.of(view)))
        .isEqualTo(
            "{\"id\":\"5f0c6a52-4c5e-4a8e-9d1e-2b6f1d2f8a01\","
                + "\"jobId\":\"0a7e5c3b-9f2d-4e1a-8b6c-3d4e5f6a7b8c\","
                + "\"tenant\":\"t1\",\"articleId\":\"a-1\",\"revisionId\":\"r-1\","
                + "\"destination\":\"dest\",\"state\":\"NEEDS_RECONCILIATION\",\"attempts\":2,"
                + "\"remoteId\":null,\"lastError\":\"timeout\",\"idempotencyKey\":\"idem-1\","
                + "\"uncertainSince\":\"2026-12-01T10:00:00.123456Z\","
                + "\"updatedAt\":\"2026-12-01T10:00:05Z\"}");
    assertThat(
            Json.mapper()
                .writeValueAsString(
                    new OperatorApiHandler.ActionApplied(
                        id, DeliveryState.NEEDS_RECONCILIATION, DeliveryState.PENDING)))
        .isEqualTo(
            "{\"actionId\":\"5f0c6a52-4c5e-4a8e-9d1e-2b6f1d2f8a01\","
                + "\"from\":\"NEEDS_RECONCILIATION\",\"to\":\"PENDING\"}");
  }

  private List<HttpResponse<String>> everyRoute() throws Exception {
    return List.of(
        send(at("/v1/deliveries")),
        send(at("/v1/deliveries/" + UUID.randomUUID())),
        send(actions(UUID.randomUUID()).POST(HttpRequest.BodyPublishers.ofString(ACTION))));
  }

  private static List<HttpResponse<String>> concat(
      List<HttpResponse<String>> first, List<HttpResponse<String>> second) {
    return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(
        request.header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(server.uri().resolve(path));
  }

  private HttpRequest.Builder actions(UUID id) {
    return at("/v1/deliveries/" + id + "/actions");
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return Json.mapper().readTree(response.body());
  }

  /** A database that refuses every connection with the configured error, counting attempts. */
  private static final class FailingDataSource implements DataSource {
    final AtomicInteger connections = new AtomicInteger();
    private volatile SQLException failure = new SQLException("not expected here", "XX000");

    void failWith(SQLException failure) {
      this.failure = failure;
    }

    @Override
    public Connection getConnection() throws SQLException {
      connections.incrementAndGet();
      throw failure;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
