package io.herald.writer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.EventHeaders;
import io.herald.common.trace.TraceContext;
import io.herald.writer.auth.BearerAuthenticator;
import io.herald.writer.job.JobStore;
import io.herald.writer.job.PublicationIntent;
import io.herald.writer.job.Reservation;
import io.herald.writer.job.StoreUnavailableException;
import io.herald.writer.metrics.RequestMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The writer's HTTP API v1 as a Jetty handler:
 *
 * <ul>
 *   <li>{@code POST /v1/publications}: 201 new job, 200 same key and payload (the existing job),
 *       409 {@code payload_conflict}, 400, 401, 413, 415, 503 with {@code Retry-After}.
 *   <li>{@code POST /v1/publications:batch}: up to {@code maxBatchItems} publications in one
 *       transaction; 200 with one result per item (201/200/409/400 each).
 *   <li>{@code GET /v1/publications/{jobId}}: the job and its status; 404 for another tenant's job.
 * </ul>
 *
 * <p>Every answer is JSON; errors are {@code {"error": code, "message": text}}, never a stack
 * trace. Handlers block on the database, so the server in front bounds how many run at once.
 *
 * <p>Thread-safe.
 */
public final class PublicationApi extends Handler.Abstract {

  private static final Logger log = LoggerFactory.getLogger(PublicationApi.class);

  static final String PUBLICATIONS = "/v1/publications";
  static final String BATCH = "/v1/publications:batch";
  private static final String JOB_PREFIX = PUBLICATIONS + "/";
  private static final String JSON = "application/json";
  private static final Duration STACK_TRACE_INTERVAL = Duration.ofSeconds(10);
  private static final String BODY_READ = PublicationApi.class.getName() + ".bodyRead";

  /** How many times the body limit an unread request body may be read and dropped (see write). */
  private static final int DISCARD_FACTOR = 4;

  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  /**
   * The handler's limits.
   *
   * @param maxBodyBytes largest accepted request body; larger ones get 413
   * @param maxBatchItems most publications in one batch; more get 413 {@code batch_too_large}
   * @param retryAfter what a 503 tells clients to wait
   */
  public record Limits(int maxBodyBytes, int maxBatchItems, Duration retryAfter) {
    public Limits {
      if (maxBodyBytes < 1 || maxBatchItems < 1) {
        throw new IllegalArgumentException(
            "API limits must be positive: maxBodyBytes="
                + maxBodyBytes
                + ", maxBatchItems="
                + maxBatchItems);
      }
      Objects.requireNonNull(retryAfter, "retryAfter");
    }

    String retryAfterSeconds() {
      return Long.toString(Math.max(1, retryAfter.toSeconds()));
    }
  }

  private enum Route {
    PUBLISH("publish", "POST"),
    BATCH("batch", "POST"),
    JOB("get", "GET"),
    UNKNOWN("unknown", "");

    final String tag;
    final String method;

    Route(String tag, String method) {
      this.tag = tag;
      this.method = method;
    }

    static Route of(String path) {
      if (path.equals(PUBLICATIONS)) {
        return PUBLISH;
      }
      if (path.equals(PublicationApi.BATCH)) {
        return BATCH;
      }
      if (path.startsWith(JOB_PREFIX) && path.indexOf('/', JOB_PREFIX.length()) < 0) {
        return JOB;
      }
      return UNKNOWN;
    }
  }

  /** A response to write. */
  private record Answer(int status, String outcome, JsonNode body, Map<String, String> headers) {}

  private final JobStore jobs;
  private final BearerAuthenticator authenticator;
  private final IntentParser parser;
  private final RequestTracing tracing;
  private final RequestMetrics metrics;
  private final ObjectMapper mapper;
  private final Limits limits;
  private final AtomicLong lastUnavailableStackTrace =
      new AtomicLong(System.nanoTime() - STACK_TRACE_INTERVAL.toNanos());

  public PublicationApi(
      JobStore jobs,
      BearerAuthenticator authenticator,
      Limits limits,
      ObjectMapper mapper,
      OpenTelemetry openTelemetry,
      RandomGenerator random,
      MeterRegistry registry) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.parser = new IntentParser(mapper);
    this.tracing = new RequestTracing(openTelemetry, random);
    this.metrics = new RequestMetrics(registry);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    long started = System.nanoTime();
    String path = Request.getPathInContext(request);
    Route route = Route.of(path);
    RequestTracing.Traced traced =
        tracing.start(
            request.getMethod() + " " + route.tag,
            request.getHeaders().get(EventHeaders.TRACEPARENT),
            request.getHeaders().get(EventHeaders.TRACESTATE));
    TraceContext trace = traced.stored();
    MDC.put("traceId", trace.traceId());
    Answer answer;
    Scope scope = traced.span().makeCurrent();
    try {
      answer = answer(request, route, path, trace);
    } catch (ApiException e) {
      answer = error(e.error(), e.getMessage(), route);
    } catch (StoreUnavailableException e) {
      logUnavailable(e);
      answer =
          error(
              ApiError.DATABASE_UNAVAILABLE,
              "the database is unavailable; retry after " + limits.retryAfterSeconds() + " s",
              route);
    } catch (RuntimeException e) {
      log.error("{} {} failed unexpectedly", request.getMethod(), path, e);
      traced.span().setStatus(StatusCode.ERROR);
      answer = error(ApiError.INTERNAL_ERROR, "internal error; trace id " + trace.traceId(), route);
    } finally {
      scope.close();
    }
    try {
      write(request, response, callback, answer);
    } finally {
      traced.span().setAttribute("http.response.status_code", answer.status());
      traced.span().end();
      metrics.record(route.tag, answer.outcome(), System.nanoTime() - started);
      MDC.remove("traceId");
      MDC.remove("tenant");
      MDC.remove("jobId");
    }
    return true;
  }

  /**
   * During an outage every request fails the same way: each is logged, but the stack trace only
   * once per {@link #STACK_TRACE_INTERVAL}, so the log stays readable and the disk does not fill.
   */
  private void logUnavailable(StoreUnavailableException e) {
    long now = System.nanoTime();
    long last = lastUnavailableStackTrace.get();
    if (now - last >= STACK_TRACE_INTERVAL.toNanos()
        && lastUnavailableStackTrace.compareAndSet(last, now)) {
      log.warn("Database unavailable, answering 503: {}", e.getMessage(), e);
    } else {
      log.warn(
          "Database unavailable, answering 503 (stack trace logged at most every {}): {}",
          STACK_TRACE_INTERVAL,
          e.getMessage());
    }
  }

  private Answer answer(Request request, Route route, String path, TraceContext trace)
      throws ApiException {
    if (route == Route.UNKNOWN) {
      throw new ApiException(ApiError.NOT_FOUND, "no resource at this path");
    }
    if (!route.method.equals(request.getMethod())) {
      throw new ApiException(
          ApiError.METHOD_NOT_ALLOWED, "this resource accepts " + route.method + " only");
    }
    String tenant = authenticate(request);
    return switch (route) {
      case PUBLISH -> publish(request, tenant, trace);
      case BATCH -> batch(request, tenant, trace);
      case JOB -> job(path.substring(JOB_PREFIX.length()), tenant);
      case UNKNOWN -> throw new IllegalStateException("unreachable");
    };
  }

  private String authenticate(Request request) throws ApiException {
    String tenant =
        authenticator
            .tenantOf(request.getHeaders().get(HttpHeader.AUTHORIZATION))
            .orElseThrow(
                () -> new ApiException(ApiError.UNAUTHORIZED, "a valid bearer token is required"));
    MDC.put("tenant", tenant);
    return tenant;
  }

  private Answer publish(Request request, String tenant, TraceContext trace) throws ApiException {
    JsonNode root = parser.parseBody(readJsonBody(request));
    PublicationIntent intent = parser.intent(root, tenant, trace);
    Reservation reservation = jobs.reserve(List.of(intent)).getFirst();
    MDC.put("jobId", reservation.job().id().toString());
    return switch (reservation) {
      case Reservation.Created created -> {
        // DEBUG: at full rate an INFO line per job would cost more than the insert; metrics count
        // them.
        log.debug("Reserved publication job for {}", intent.key());
        yield new Answer(
            201,
            "created",
            JobJson.summary(mapper, created.job()),
            Map.of(HttpHeader.LOCATION.asString(), JOB_PREFIX + created.job().id()));
      }
      case Reservation.Replayed replayed -> {
        log.debug("Replayed publication job for {}", intent.key());
        yield new Answer(200, "replayed", JobJson.summary(mapper, replayed.job()), Map.of());
      }
      case Reservation.Conflict conflict -> {
        log.info(
            "Refused {}: stored payload hash {}, requested {}",
            intent.key(),
            conflict.job().payloadHash(),
            intent.payloadHash());
        yield new Answer(409, "conflict", conflictBody(conflict, intent), Map.of());
      }
    };
  }

  private Answer batch(Request request, String tenant, TraceContext trace) throws ApiException {
    List<JsonNode> items =
        parser.batchItems(parser.parseBody(readJsonBody(request)), limits.maxBatchItems());
    ObjectNode[] results = new ObjectNode[items.size()];
    List<PublicationIntent> intents = new ArrayList<>(items.size());
    List<Integer> positions = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      try {
        intents.add(parser.intent(items.get(i), tenant, trace));
        positions.add(i);
      } catch (ApiException e) {
        results[i] = itemResult(i, e.error().status());
        results[i].put("error", e.error().code());
        results[i].put("message", e.getMessage());
        metrics.batchItem(e.error().outcome());
      }
    }
    List<Reservation> reservations = jobs.reserve(intents);
    int created = 0;
    for (int k = 0; k < reservations.size(); k++) {
      int index = positions.get(k);
      Reservation reservation = reservations.get(k);
      switch (reservation) {
        case Reservation.Created c -> {
          results[index] = itemResult(index, 201).set("job", JobJson.summary(mapper, c.job()));
          created++;
          metrics.batchItem("created");
        }
        case Reservation.Replayed r -> {
          results[index] = itemResult(index, 200).set("job", JobJson.summary(mapper, r.job()));
          metrics.batchItem("replayed");
        }
        case Reservation.Conflict c -> {
          results[index] = itemResult(index, 409).setAll(conflictBody(c, intents.get(k)));
          metrics.batchItem("conflict");
        }
      }
    }
    log.debug("Batch of {} publications: {} new jobs", items.size(), created);
    ObjectNode body = mapper.createObjectNode();
    ArrayNode array = body.putArray("results");
    for (ObjectNode result : results) {
      array.add(result);
    }
    return new Answer(200, "ok", body, Map.of());
  }

  private Answer job(String id, String tenant) throws ApiException {
    if (!UUID_TEXT.matcher(id).matches()) {
      throw new ApiException(ApiError.NOT_FOUND, "no publication job with this id");
    }
    UUID jobId = UUID.fromString(id);
    MDC.put("jobId", jobId.toString());
    return jobs.find(tenant, jobId)
        .map(job -> new Answer(200, "ok", JobJson.full(mapper, job), Map.<String, String>of()))
        .orElseThrow(() -> new ApiException(ApiError.NOT_FOUND, "no publication job " + jobId));
  }

  private ObjectNode itemResult(int index, int status) {
    ObjectNode node = mapper.createObjectNode();
    node.put("index", index);
    node.put("status", status);
    return node;
  }

  private ObjectNode conflictBody(Reservation.Conflict conflict, PublicationIntent intent) {
    ObjectNode body =
        JobJson.error(
            mapper,
            ApiError.PAYLOAD_CONFLICT.code(),
            "a job for this tenant, articleId, revisionId and destination exists with other"
                + " content; publish changed content as a new revision");
    body.put("jobId", conflict.job().id().toString());
    body.put("storedPayloadHash", conflict.job().payloadHash());
    body.put("requestPayloadHash", intent.payloadHash());
    return body;
  }

  /**
   * The body, bounded: a declared length over the limit is refused before reading, and an
   * undeclared (chunked) one is read up to one byte past the limit. What is left unread is dealt
   * with when the answer is written.
   */
  private byte[] readJsonBody(Request request) throws ApiException {
    if (!isJson(request.getHeaders().get(HttpHeader.CONTENT_TYPE))) {
      throw new ApiException(
          ApiError.UNSUPPORTED_MEDIA_TYPE, "the request body must be application/json (UTF-8)");
    }
    long declared = request.getLength();
    if (declared > limits.maxBodyBytes()) {
      throw tooLarge();
    }
    InputStream in = Content.Source.asInputStream(request);
    try {
      byte[] body = in.readNBytes(limits.maxBodyBytes() + 1);
      if (body.length > limits.maxBodyBytes()) {
        throw tooLarge();
      }
      request.setAttribute(BODY_READ, Boolean.TRUE);
      return body;
    } catch (IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof TimeoutException) {
          throw new ApiException(
              ApiError.REQUEST_TIMEOUT, "the request body did not arrive in time");
        }
      }
      throw new ApiException(
          ApiError.UNREADABLE_BODY, "the request body could not be read: " + e.getMessage());
    }
  }

  /**
   * Reads and drops the rest of a request body the answer does not need, up to {@link
   * #DISCARD_FACTOR} times the body limit.
   *
   * @return whether the body ended within that, so the connection can stay open
   */
  private boolean discardRest(Request request) {
    long declared = request.getLength();
    long max = (long) DISCARD_FACTOR * limits.maxBodyBytes();
    if (declared > max) {
      return false;
    }
    InputStream in = Content.Source.asInputStream(request);
    byte[] buffer = new byte[8192];
    long left = max;
    try {
      while (left >= 0) {
        int read = in.read(buffer, 0, (int) Math.min(buffer.length, left + 1));
        if (read < 0) {
          return true;
        }
        left -= read;
      }
      return false;
    } catch (IOException e) {
      log.debug("Could not read the rest of a refused request body; closing the connection", e);
      return false;
    }
  }

  private ApiException tooLarge() {
    return new ApiException(
        ApiError.PAYLOAD_TOO_LARGE,
        "the request body is larger than " + limits.maxBodyBytes() + " bytes");
  }

  /** {@code application/json}, with no charset or UTF-8 (RFC 8259 allows nothing else). */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String[] parts = contentType.split(";");
    if (!parts[0].strip().equalsIgnoreCase(JSON)) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].strip();
      int equals = parameter.indexOf('=');
      if (equals > 0 && parameter.substring(0, equals).strip().equalsIgnoreCase("charset")) {
        String charset = parameter.substring(equals + 1).strip().replace("\"", "");
        if (!charset.equalsIgnoreCase("utf-8")) {
          return false;
        }
      }
    }
    return true;
  }

  private Answer error(ApiError error, String message, Route route) {
    Map<String, String> headers = new LinkedHashMap<>();
    switch (error) {
      case UNAUTHORIZED ->
          headers.put(HttpHeader.WWW_AUTHENTICATE.asString(), "Bearer realm=\"herald\"");
      case METHOD_NOT_ALLOWED -> headers.put(HttpHeader.ALLOW.asString(), route.method);
      case DATABASE_UNAVAILABLE ->
          headers.put(HttpHeader.RETRY_AFTER.asString(), limits.retryAfterSeconds());
      default -> {}
    }
    return new Answer(
        error.status(), error.outcome(), JobJson.error(mapper, error.code(), message), headers);
  }

  /**
   * Writes the answer. When the request's body was left unread (refused before or while reading:
   * 401, 413, 415, 404, 405), the rest is read and dropped first, up to {@link #DISCARD_FACTOR}
   * times the body limit: closing a connection with unread input makes the kernel reset it, and a
   * client still sending its body then loses the answer it was sent. A body larger still is left
   * unread and the connection closed after the answer: Jetty would otherwise have to discard an
   * unknown amount of input, and may close the connection anyway after the client has already
   * reused it for its next request.
   */
  private void write(Request request, Response response, Callback callback, Answer answer) {
    byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(answer.body());
    } catch (IOException e) {
      // Jetty answers a failed callback with 500 through the server's JSON error handler.
      log.error("Cannot serialise a response body", e);
      callback.failed(e);
      return;
    }
    response.setStatus(answer.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    answer.headers().forEach((name, value) -> response.getHeaders().put(name, value));
    if (request.getLength() != 0
        && request.getAttribute(BODY_READ) == null
        && !discardRest(request)) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }
}
