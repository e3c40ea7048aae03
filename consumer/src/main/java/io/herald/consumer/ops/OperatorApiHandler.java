package io.herald.consumer.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.consumer.policy.OperatorAction;
import io.herald.consumer.reconcile.OperatorActions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' HTTP API, mounted on the consumer's ops server when an operator token is
 * configured:
 *
 * <ul>
 *   <li>{@code GET /v1/deliveries?state=NEEDS_RECONCILIATION&limit=100}: the work list
 *   <li>{@code GET /v1/deliveries/{id}}: one delivery
 *   <li>{@code POST /v1/deliveries/{id}/actions} {@code {"action":"MARK_PUBLISHED|RETRY|ABANDON",
 *       "actor":"alice","reason":"...","remoteId":"..."}}: 200 applied, 404 unknown delivery, 409
 *       not allowed in its state, 400 invalid
 * </ul>
 *
 * <p>Every request needs {@code Authorization: Bearer <consumer.ops.operator-token>}. Thread-safe.
 */
public final class OperatorApiHandler extends Handler.Abstract {

  private static final Logger log = LoggerFactory.getLogger(OperatorApiHandler.class);
  private static final String PREFIX = "/v1/deliveries";

  private final DeliveryViews deliveries;
  private final OperatorActions actions;
  private final byte[] expectedAuthorization;

  public OperatorApiHandler(
      DeliveryViews deliveries, OperatorActions actions, String operatorToken) {
    super(InvocationType.BLOCKING);
    this.deliveries = deliveries;
    this.actions = actions;
    this.expectedAuthorization = ("Bearer " + operatorToken).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    if (!path.equals(PREFIX) && !path.startsWith(PREFIX + "/")) {
      return false;
    }
    try {
      String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
      if (authorization == null
          || !MessageDigest.isEqual(
              expectedAuthorization, authorization.getBytes(StandardCharsets.UTF_8))) {
        write(response, callback, 401, error("unauthorized", "operator token required"));
        return true;
      }
      route(request, response, callback, path);
    } catch (SQLException e) {
      log.error("Operator API {} {} failed", request.getMethod(), path, e);
      write(response, callback, 503, error("database_unavailable", e.getMessage()));
    } catch (IllegalArgumentException e) {
      write(response, callback, 400, error("invalid_request", e.getMessage()));
    } catch (IOException e) {
      write(
          response, callback, 400, error("invalid_request", "cannot read body: " + e.getMessage()));
    }
    return true;
  }

  private void route(Request request, Response response, Callback callback, String path)
      throws SQLException, IOException {
    String method = request.getMethod();
    String rest = path.substring(PREFIX.length());
    if (rest.isEmpty() && "GET".equals(method)) {
      Fields query = Request.extractQueryParameters(request);
      DeliveryState state =
          DeliveryState.valueOf(
              Optional.ofNullable(query.getValue("state"))
                  .orElse("NEEDS_RECONCILIATION")
                  .toUpperCase(Locale.ROOT));
      int limit = Integer.parseInt(Optional.ofNullable(query.getValue("limit")).orElse("100"));
      ArrayNode list = Json.mapper().createArrayNode();
      for (DeliveryView view : deliveries.list(state, Math.min(Math.max(limit, 1), 1000))) {
        list.add(json(view));
      }
      write(response, callback, 200, list);
      return;
    }
    String[] parts = rest.substring(1).split("/");
    UUID id = UUID.fromString(parts[0]);
    if (parts.length == 1 && "GET".equals(method)) {
      Optional<DeliveryView> view = deliveries.find(id);
      if (view.isEmpty()) {
        write(response, callback, 404, error("not_found", "no delivery " + id));
      } else {
        write(response, callback, 200, json(view.get()));
      }
      return;
    }
    if (parts.length == 2 && "actions".equals(parts[1]) && "POST".equals(method)) {
      JsonNode body =
          Json.mapper().readTree(Content.Source.asString(request, StandardCharsets.UTF_8));
      if (body == null || !body.isObject()) {
        throw new IllegalArgumentException("body must be a JSON object");
      }
      OperatorAction action = OperatorAction.valueOf(text(body, "action").toUpperCase(Locale.ROOT));
      OperatorActions.Result result =
          actions.apply(
              action,
              id,
              body.path("remoteId").isTextual() ? body.get("remoteId").asText() : null,
              text(body, "actor"),
              text(body, "reason"));
      ObjectNode answer = Json.mapper().createObjectNode();
      switch (result) {
        case OperatorActions.Result.Applied applied -> {
          answer.put("actionId", applied.actionId().toString());
          answer.put("from", applied.from().name());
          answer.put("to", applied.to().name());
          write(response, callback, 200, answer);
        }
        case OperatorActions.Result.NotFound notFound ->
            write(response, callback, 404, error("not_found", "no delivery " + id));
        case OperatorActions.Result.NotAllowed notAllowed ->
            write(response, callback, 409, error("not_allowed", notAllowed.reason()));
      }
      return;
    }
    write(response, callback, 404, error("not_found", method + " " + path));
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new IllegalArgumentException(field + " is required");
    }
    return value.asText();
  }

  private static ObjectNode json(DeliveryView view) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("id", view.id().toString());
    node.put("jobId", view.jobId().toString());
    node.put("tenant", view.tenant());
    node.put("articleId", view.articleId());
    node.put("revisionId", view.revisionId());
    node.put("destination", view.destination());
    node.put("state", view.state().name());
    node.put("attempts", view.attempts());
    node.put("remoteId", view.remoteId());
    node.put("lastError", view.lastError());
    node.put("idempotencyKey", view.idempotencyKey());
    node.put(
        "uncertainSince", view.uncertainSince() == null ? null : view.uncertainSince().toString());
    node.put("updatedAt", view.updatedAt().toString());
    return node;
  }

  private static ObjectNode error(String code, String message) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("error", code);
    node.put("message", message);
    return node;
  }

  private static void write(Response response, Callback callback, int status, JsonNode body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Content.Sink.write(response, true, body.toString(), callback);
  }
}
