package io.herald.consumer.ops;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.consumer.policy.OperatorAction;
import io.herald.consumer.reconcile.OperatorActions;
import io.herald.runtime.http.HttpProblem;
import io.herald.runtime.http.Router;
import io.herald.runtime.http.Router.Reply;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The operators' HTTP API, mounted on the consumer's ops server when an operator token is
 * configured, on runtime's {@link Router} (its one error mapping: no SQL or exception text reaches
 * the client):
 *
 * <ul>
 *   <li>{@code GET /v1/deliveries?state=NEEDS_RECONCILIATION&limit=100}: the work list, oldest
 *       first; {@code limit} is held to 1..1000; 400 for an unknown state or a limit that is not a
 *       number
 *   <li>{@code GET /v1/deliveries/{id}}: one delivery; 404 when unknown or when the id is not a
 *       UUID
 *   <li>{@code POST /v1/deliveries/{id}/actions} {@code {"action":"MARK_PUBLISHED|RETRY|ABANDON",
 *       "actor":"alice","reason":"...","remoteId":"..."}} (at most {@value #MAX_BODY_BYTES} bytes):
 *       200 applied, 404 unknown delivery, 409 {@code not_allowed} in its state, 400 invalid, 413
 *       too large
 *   <li>{@code GET /v1/destinations}: every configured destination: its guarantee, its operator
 *       pause (who, why, when), this instance's circuit breaker and the deliveries waiting
 *   <li>{@code POST /v1/destinations/{name}/pause} and {@code .../resume} {@code
 *       {"actor":"alice","reason":"..."}}: 200 with the destination's status, 404 unknown
 *       destination, 400 invalid, 413 too large
 * </ul>
 *
 * <p>Every request needs {@code Authorization: Bearer <consumer.ops.operator-token>} (compared in
 * constant time), else 401. Thread-safe.
 */
public final class OperatorApiHandler {

  /** An action request is a few short strings; 16 KiB leaves room for a long reason. */
  static final int MAX_BODY_BYTES = 16 * 1024;

  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  /** A delivery as operators read it; field names and order are the API's contract. */
  record DeliveryBody(
      UUID id,
      UUID jobId,
      String tenant,
      String articleId,
      String revisionId,
      String destination,
      DeliveryState state,
      int attempts,
      String remoteId,
      String lastError,
      String idempotencyKey,
      String uncertainSince,
      String updatedAt) {

    static DeliveryBody of(DeliveryView view) {
      return new DeliveryBody(
          view.id(),
          view.jobId(),
          view.tenant(),
          view.articleId(),
          view.revisionId(),
          view.destination(),
          view.state(),
          view.attempts(),
          view.remoteId(),
          view.lastError(),
          view.idempotencyKey(),
          text(view.uncertainSince()),
          text(view.updatedAt()));
    }

    static String text(Instant instant) {
      return instant == null ? null : instant.toString();
    }
  }

  /**
   * The body of {@code POST .../actions}. Strings, not an enum, so the action is matched without
   * regard to case and a wrong one is named in the answer; other fields are ignored, as before.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ActionRequest(String action, String actor, String reason, String remoteId) {

    OperatorAction operatorAction() throws HttpProblem {
      String name = required("action", action).toUpperCase(Locale.ROOT);
      for (OperatorAction candidate : OperatorAction.values()) {
        if (candidate.name().equals(name)) {
          return candidate;
        }
      }
      throw invalid("action must be one of " + Arrays.toString(OperatorAction.values()));
    }

    /** What {@link OperatorActions#apply} requires, checked here so it answers 400, not 500. */
    void validate(OperatorAction operatorAction) throws HttpProblem {
      required("actor", actor);
      required("reason", reason);
      if (operatorAction == OperatorAction.MARK_PUBLISHED) {
        required("remoteId", remoteId);
      }
    }

    static String required(String field, String value) throws HttpProblem {
      if (value == null || value.isBlank()) {
        throw invalid(field + " is required");
      }
      return value;
    }
  }

  /** The answer to an applied action. */
  record ActionApplied(UUID actionId, DeliveryState from, DeliveryState to) {}

  /** The body of {@code POST /v1/destinations/{name}/pause|resume}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record PauseRequest(String actor, String reason) {
    void validate() throws HttpProblem {
      ActionRequest.required("actor", actor);
      ActionRequest.required("reason", reason);
    }
  }

  /** The last pause or resume of a destination. */
  record PauseBody(boolean paused, String actor, String reason, String at) {}

  /**
   * A destination as operators read it; field names and order are the API's contract. {@code
   * breaker} is the answering instance's ({@code instance}): each instance has its own.
   */
  record DestinationBody(
      String name,
      String tier,
      String guarantee,
      boolean paused,
      PauseBody pause,
      String breaker,
      int consecutiveFailures,
      String breakerReopensAt,
      long breakerOpenedTotal,
      long waiting,
      String instance) {

    static DestinationBody of(DestinationControl.Status status, String instance) {
      return new DestinationBody(
          status.config().name(),
          status.config().profile().tier().label(),
          status.config().profile().guarantee(),
          status.paused(),
          status
              .pause()
              .map(p -> new PauseBody(p.paused(), p.actor(), p.reason(), p.changedAt().toString()))
              .orElse(null),
          status.breaker().state().name(),
          status.breaker().consecutiveFailures(),
          DeliveryBody.text(status.breaker().reopensAt()),
          status.breaker().openedTotal(),
          status.waiting(),
          instance);
    }
  }

  private final DeliveryViews deliveries;
  private final OperatorActions actions;
  private final DestinationControl destinations;
  private final String instance;
  private final byte[] expectedAuthorization;

  private OperatorApiHandler(
      DeliveryViews deliveries,
      OperatorActions actions,
      DestinationControl destinations,
      String instance,
      String operatorToken) {
    this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    this.actions = Objects.requireNonNull(actions, "actions");
    this.destinations = destinations;
    this.instance = instance;
    this.expectedAuthorization =
        ("Bearer " + Objects.requireNonNull(operatorToken, "operatorToken"))
            .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The deliveries part of the API alone, as a handler for the ops server; it declines paths
   * outside {@code /v1/deliveries}.
   */
  public static Router create(
      DeliveryViews deliveries, OperatorActions actions, String operatorToken) {
    return routes(new OperatorApiHandler(deliveries, actions, null, null, operatorToken)).build();
  }

  /**
   * The whole API, {@code /v1/destinations} included, as a handler for the ops server.
   *
   * @param instance this instance's claim owner name, shown beside its breakers
   */
  public static Router create(
      DeliveryViews deliveries,
      OperatorActions actions,
      DestinationControl destinations,
      String instance,
      String operatorToken) {
    OperatorApiHandler api =
        new OperatorApiHandler(
            deliveries,
            actions,
            Objects.requireNonNull(destinations, "destinations"),
            Objects.requireNonNull(instance, "instance"),
            operatorToken);
    return routes(api)
        .get("/v1/destinations", api::destinations)
        .post("/v1/destinations/{name}/pause", call -> api.pauseOrResume(call, true))
        .post("/v1/destinations/{name}/resume", call -> api.pauseOrResume(call, false))
        .build();
  }

  private static Router.Builder routes(OperatorApiHandler api) {
    return Router.builder("operator API")
        .guard(api::authorize)
        .get("/v1/deliveries", api::list)
        .get("/v1/deliveries/{id}", api::find)
        .post("/v1/deliveries/{id}/actions", api::act);
  }

  private Reply destinations(Router.Call call) throws Exception {
    return Reply.ok(
        destinations.statuses().stream().map(s -> DestinationBody.of(s, instance)).toList());
  }

  private Reply pauseOrResume(Router.Call call, boolean pause) throws Exception {
    String name = call.path("name");
    // Before the body: an unknown destination is a 404 whatever was sent.
    if (!destinations.knows(name)) {
      throw HttpProblem.notFound("no destination '" + echo(name) + "' is configured");
    }
    PauseRequest request = call.body(MAX_BODY_BYTES, PauseRequest.class);
    request.validate();
    DestinationControl.Status status =
        pause
            ? destinations.pause(name, request.actor(), request.reason())
            : destinations.resume(name, request.actor(), request.reason());
    return Reply.ok(DestinationBody.of(status, instance));
  }

  private void authorize(Request request) throws HttpProblem {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    // Constant time: how much of a guessed token matched must not show in the answer's timing.
    if (authorization == null
        || !MessageDigest.isEqual(
            expectedAuthorization, authorization.getBytes(StandardCharsets.UTF_8))) {
      throw HttpProblem.unauthorized("operator token required");
    }
  }

  private Reply list(Router.Call call) throws Exception {
    DeliveryState state =
        state(call.query("state").orElse(DeliveryState.NEEDS_RECONCILIATION.name()));
    int limit = limit(call.query("limit").orElse(Integer.toString(DEFAULT_LIMIT)));
    List<DeliveryBody> views =
        deliveries.list(state, limit).stream().map(DeliveryBody::of).toList();
    return Reply.ok(views);
  }

  private Reply find(Router.Call call) throws Exception {
    UUID id = call.uuid("id");
    return deliveries
        .find(id)
        .map(view -> Reply.ok(DeliveryBody.of(view)))
        .orElseThrow(() -> HttpProblem.notFound("no delivery " + id));
  }

  private Reply act(Router.Call call) throws Exception {
    UUID id = call.uuid("id");
    ActionRequest request = call.body(MAX_BODY_BYTES, ActionRequest.class);
    OperatorAction action = request.operatorAction();
    request.validate(action);
    OperatorActions.Result result =
        actions.apply(action, id, request.remoteId(), request.actor(), request.reason());
    return switch (result) {
      case OperatorActions.Result.Applied applied ->
          Reply.ok(new ActionApplied(applied.actionId(), applied.from(), applied.to()));
      case OperatorActions.Result.NotFound notFound ->
          throw HttpProblem.notFound("no delivery " + id);
      case OperatorActions.Result.NotAllowed notAllowed ->
          throw new HttpProblem(409, "not_allowed", notAllowed.reason());
    };
  }

  private static DeliveryState state(String text) throws HttpProblem {
    String name = text.toUpperCase(Locale.ROOT);
    for (DeliveryState state : DeliveryState.values()) {
      if (state.name().equals(name)) {
        return state;
      }
    }
    throw invalid("state must be one of " + Arrays.toString(DeliveryState.values()));
  }

  /** A number, held to 1..{@value #MAX_LIMIT} as before (a larger one is not an error). */
  private static int limit(String text) throws HttpProblem {
    try {
      return Math.min(Math.max(Integer.parseInt(text), 1), MAX_LIMIT);
    } catch (NumberFormatException e) {
      throw invalid("limit must be a whole number, was '" + echo(text) + "'");
    }
  }

  /** Client text in a message: bounded, so an answer never amplifies a long query. */
  private static String echo(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "...";
  }

  private static HttpProblem invalid(String message) {
    return HttpProblem.badRequest("invalid_request", message);
  }
}
