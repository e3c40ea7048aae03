package io.herald.runtime.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.runtime.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpsServerTest {

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final AtomicBoolean databaseUp = new AtomicBoolean(true);
  private PrometheusMeterRegistry registry;
  private OpsServer server;

  @BeforeEach
  void start() {
    registry = Metrics.newRegistry("test");
    registry.counter("herald_test_events_total").increment(3);
    server =
        OpsServer.builder("test", registry)
            .host("127.0.0.1")
            .port(0)
            .healthCheck(
                HealthCheck.of(
                    "database",
                    () ->
                        databaseUp.get()
                            ? HealthCheck.Status.up("ok")
                            : HealthCheck.Status.down("connection refused")))
            .healthCheck(HealthCheck.of("kafka", () -> HealthCheck.Status.up("ok")))
            .handler(new Hello())
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    registry.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(server.uri().resolve(path)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldReportHealthyWhenEveryCheckIsUp() throws Exception {
    HttpResponse<String> response = get("/health");

    assertEquals(200, response.statusCode());
    assertTrue(
        response.headers().firstValue("content-type").orElseThrow().startsWith("application/json"));
    JsonNode body = Json.mapper().readTree(response.body());
    assertEquals("UP", body.get("status").asText());
    assertEquals("UP", body.get("checks").get("database").get("status").asText());
    assertEquals("UP", body.get("checks").get("kafka").get("status").asText());
  }

  @Test
  void shouldAnswer503NamingTheFailingCheck() throws Exception {
    databaseUp.set(false);

    HttpResponse<String> response = get("/health");

    assertEquals(503, response.statusCode());
    JsonNode body = Json.mapper().readTree(response.body());
    assertEquals("DOWN", body.get("status").asText());
    assertEquals("DOWN", body.get("checks").get("database").get("status").asText());
    assertEquals("connection refused", body.get("checks").get("database").get("detail").asText());
    assertEquals("UP", body.get("checks").get("kafka").get("status").asText());
  }

  @Test
  void shouldCountACheckThatThrowsAsDown() throws Exception {
    server.addHealthCheck(
        HealthCheck.of(
            "broken",
            () -> {
              throw new IllegalStateException("boom");
            }));

    HttpResponse<String> response = get("/health");

    assertEquals(503, response.statusCode());
    assertTrue(response.body().contains("boom"), response.body());
  }

  @Test
  void shouldServePrometheusText() throws Exception {
    HttpResponse<String> response = get("/metrics");

    assertEquals(200, response.statusCode());
    assertEquals(
        Metrics.PROMETHEUS_CONTENT_TYPE,
        response.headers().firstValue("content-type").orElseThrow());
    assertTrue(
        response.body().contains("herald_test_events_total{process=\"test\"} 3.0"),
        response.body());
    assertTrue(response.body().contains("jvm_memory_used_bytes"), "JVM binders registered");
  }

  @Test
  void shouldServeMountedHandlersAnd404Otherwise() throws Exception {
    assertEquals("hello", get("/hello").body());
    assertEquals(404, get("/nothing-here").statusCode());
  }

  @Test
  void shouldRejectOtherMethodsOnOpsPaths() throws Exception {
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(server.uri().resolve("/health"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertEquals(405, response.statusCode());
  }

  @Test
  void shouldStopListeningWhenClosed() throws Exception {
    URI uri = server.uri().resolve("/health");
    server.close();

    assertThrows(
        ConnectException.class,
        () ->
            client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()));
  }

  /** Stands in for the writer's API handler. */
  private static final class Hello extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      if (!Request.getPathInContext(request).equals("/hello")) {
        return false;
      }
      response.setStatus(200);
      response.write(true, ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)), callback);
      return true;
    }
  }
}
