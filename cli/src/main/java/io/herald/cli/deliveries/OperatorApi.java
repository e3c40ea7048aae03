package io.herald.cli.deliveries;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.CliFailure;
import io.herald.common.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * The consumer's operator API ({@code /v1/deliveries} and {@code /v1/destinations}, see the
 * consumer's {@code OperatorApiHandler}) as the command calls it. Each call returns the API's JSON
 * text; an answer other than 200 becomes a {@link CliFailure} with the exit code it means: 404
 * (unknown delivery or destination) and 409 (action not allowed in its state) exit 1, 400, 401 and
 * 413 exit 2, and no answer or a server error exits 3. Thread-safe. Public for {@code herald
 * monitor}, which reads the oldest uncertain deliveries through it.
 */
public final class OperatorApi {

  /** One request to the API; a delivery action waits on one short transaction. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** An action request, as the API reads it; the field names are the API's contract. */
  record ActionRequest(String action, String actor, String reason, String remoteId) {}

  private final URI base;
  private final String authorization;
  private final HttpClient http;

  OperatorApi(URI base, String token, HttpClient http) {
    this.base = Objects.requireNonNull(base, "base");
    this.authorization = "Bearer " + Objects.requireNonNull(token, "token");
    this.http = Objects.requireNonNull(http, "http");
  }

  /** {@code GET /v1/deliveries?state=S&limit=N}: a JSON array, oldest first. */
  public String list(String state, int limit) {
    return send(
        request(
                "/v1/deliveries?state="
                    + URLEncoder.encode(state, StandardCharsets.UTF_8)
                    + "&limit="
                    + limit)
            .GET(),
        "list the " + state + " deliveries");
  }

  /** {@code GET /v1/deliveries/{id}}: one delivery. */
  String show(UUID id) {
    return send(request("/v1/deliveries/" + id).GET(), "read delivery " + id);
  }

  /** {@code POST /v1/deliveries/{id}/actions}: {@code {"actionId","from","to"}}. */
  String act(UUID id, ActionRequest action) {
    String body;
    try {
      body = Json.mapper().writeValueAsString(action);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the action request of delivery " + id, e);
    }
    return send(
        request("/v1/deliveries/" + id + "/actions")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
        action.action() + " delivery " + id);
  }

  /** {@code GET /v1/destinations}: every configured destination's pause and breaker. */
  public String destinations() {
    return send(request("/v1/destinations").GET(), "read the destinations");
  }

  /**
   * {@code POST /v1/destinations/{name}/pause} or {@code .../resume}: the destination's status
   * after it; 404 (not configured) exits 1.
   */
  public String pauseOrResume(String name, boolean pause, String actor, String reason) {
    String body;
    try {
      body = Json.mapper().writeValueAsString(new PauseRequest(actor, reason));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the pause request of " + name, e);
    }
    String verb = pause ? "pause" : "resume";
    return send(
        request(
                "/v1/destinations/"
                    + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20")
                    + "/"
                    + verb)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
        verb + " destination " + name);
  }

  /** A pause or resume request, as the API reads it. */
  record PauseRequest(String actor, String reason) {}

  /**
   * {@code body} of a 200 answer as JSON; a body that is not JSON means something else answers at
   * {@link #base} (exit 3, as for no answer).
   */
  public JsonNode json(String body) {
    try {
      return Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw CliFailure.unreachable(
          "the operator API at "
              + base
              + " answered 200 with a body that is not JSON: "
              + message(body),
          e);
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path))
        .timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/json")
        .header("Authorization", authorization);
  }

  private String send(HttpRequest.Builder request, String what) {
    HttpResponse<String> response;
    try {
      response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw CliFailure.unreachable(
          "cannot " + what + ": the consumer's operator API at " + base + " did not answer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.unreachable("interrupted while waiting to " + what, e);
    }
    int status = response.statusCode();
    if (status == 200) {
      return response.body();
    }
    String problem = "cannot " + what + ": " + status + " " + message(response.body());
    throw switch (status) {
      case 404, 409 -> CliFailure.violation(problem);
      case 401 ->
          CliFailure.usage(
              problem
                  + "; the consumer refused the operator token (check "
                  + DeliveriesCommand.TOKEN_ENV
                  + " or --token-file)");
      case 400, 413 -> CliFailure.usage(problem);
      default -> CliFailure.unreachable(problem + " (from the operator API at " + base + ")", null);
    };
  }

  /** The API's {@code {"error","message"}} as one line, or the start of a body that is not it. */
  static String message(String body) {
    try {
      JsonNode node = Json.mapper().readTree(body);
      if (node.hasNonNull("message")) {
        String error = node.path("error").asText("");
        return (error.isEmpty() ? "" : error + ": ") + node.get("message").asText();
      }
    } catch (JsonProcessingException e) {
      // Not the API's error shape (a proxy's page, say): show its start instead.
    }
    String text = body == null ? "" : body.strip();
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
