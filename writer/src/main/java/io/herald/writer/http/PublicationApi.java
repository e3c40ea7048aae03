package io.herald.writer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.herald.common.event.EventHeaders;
import io.herald.common.trace.TraceContext;
import io.herald.runtime.http.HttpProblem;
import io.herald.runtime.http.JsonErrorHandler;
import io.herald.runtime.http.JsonHttp;
import io.herald.runtime.http.Router;
import io.herald.writer.auth.BearerAuthenticator;
import io.herald.writer.job.JobStore;
import io.herald.writer.job.PublicationIntent;
import io.herald.writer.job.Reservation;
import io.herald.writer.job.SingleReservations;
import io.herald.writer.job.StoreUnavailableException;
import io.herald.writer.metrics.RequestMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 *   <li>{@code POST /v1/publications:batch}: up to {@code batchMaxItems} publications in one
 *       transaction; 200 with one result per item (201/200/409/400 each).
 *   <li>{@code GET /v1/publications/{jobId}}: the job and its status; 404 for another tenant's job.
 * </ul>
 *
 * <p>Every answer is JSON written by Jackson from records ({@link ApiBodies}); errors are runtime's
 * {@link HttpProblem} ({@code {"error": code, "message": text}}, never a stack trace), from the
 * writer's catalogue {@link ApiError}; errors Jetty produces itself go through runtime's {@link
 * JsonErrorHandler}. Handlers block on the database, so the server in front bounds how many run at
 * once.
 *
 * <p>Why not runtime's {@link Router}: this is the writer's hot path, and every request, including
 * one refused before routing (404, 405, 401), runs inside a server span, the trace id in the MDC
 * and a timer tagged with its route and outcome, and after the answer has its unread body drained
 * or its connection closed (see {@code write}). The Router has no hook around a request for those,
 * and its matching allocates per request (path segments, a parameter map, the allowed-methods set,
 * a call object); three fixed routes are an enum and a switch here. The convention is shared where
 * it matters to clients: the same error type, body and codes, bodies bounded, records written by
 * Jackson, {@code no-store}.
 *
 * <p>Thread-safe.
 */
public final class PublicationApi extends Handler.Abstract {

  private static final Logger log = LoggerFactory.getLogger(PublicationApi.class);

  static final String PUBLICATIONS = "/v1/publications";
  static final String BATCH = "/v1/publications:batch";
  private static final String JOB_PREFIX = PUBLICATIONS + "/";
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
   * <p>Validated by {@code WriterConfig}, where the keys are defined.
   *
   * @param requestMaxBytes {@code writer.http.request-max-bytes}: largest accepted request body;
   *     larger ones get 413
   * @param batchMaxItems {@code writer.batch.max-items}: most publications in one batch; more get
   *     413 {@code batch_too_large}
   * @param retryAfter {@code writer.http.retry-after}: what a 503 tells clients to wait
   * @param allowedDestinations {@code writer.destinations.allowed}: the destinations a publication
   *     may name, others get 422 {@code unknown_destination}; empty: any
   */
  public record Limits(
      int requestMaxBytes,
      int batchMaxItems,
      Duration retryAfter,
      Set<String> allowedDestinations) {

    public Limits {
      allowedDestinations = Set.copyOf(allowedDestinations);
    }

    /** Limits that accept any destination. */
    public Limits(int requestMaxBytes, int batchMaxItems, Duration retryAfter) {
      this(requestMaxBytes, batchMaxItems, retryAfter, Set.of());
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

  /** A response to write: a record Jackson writes, and the outcome tag it is counted under. */
  private record Answer(int status, String outcome, Object body, Map<String, String> headers) {

    static Answer of(HttpProblem problem) {
      return new Answer(
          problem.status(), ApiError.of(problem).outcome(), problem.body(), problem.headers());
    }
  }

  private final JobStore jobs;
  private final SingleReservations singles;
  private final BearerAuthenticator authenticator;
  private final IntentParser parser;
  private final RequestTracing tracing;
  private final RequestMetrics metrics;
  private final ObjectMapper mapper;
  private final Limits limits;
  private final AtomicLong lastUnavailableStackTrace =
      new AtomicLong(System.nanoTime() - STACK_TRACE_INTERVAL.toNanos());

  /**
   * @param jobs reserves a batch's intents in one transaction, and finds jobs
   * @param singles reserves a single publication, sharing the transaction with concurrent ones
   */
  public PublicationApi(
      JobStore jobs,
      SingleReservations singles,
      BearerAuthenticator authenticator,
      Limits limits,
      ObjectMapper mapper,
      OpenTelemetry openTelemetry,
      RandomGenerator random,
      MeterRegistry registry) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.singles = Objects.requireNonNull(singles, "singles");
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.parser = new IntentParser(mapper, limits.allowedDestinations());
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
    } catch (HttpProblem problem) {
      answer = Answer.of(problem);
    } catch (StoreUnavailableException e) {
      logUnavailable(e);
      answer =
          Answer.of(
              ApiError.DATABASE_UNAVAILABLE
                  .problem(
                      "the database is unavailable; retry after "
                          + limits.retryAfterSeconds()
                          + " s")
                  .withHeader(HttpHeader.RETRY_AFTER.asString(), limits.retryAfterSeconds()));
    } catch (RuntimeException e) {
      log.error("{} {} failed unexpectedly", request.getMethod(), path, e);
      traced.span().setStatus(StatusCode.ERROR);
      answer =
          Answer.of(ApiError.INTERNAL_ERROR.problem("internal error; trace id " + trace.traceId()));
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
      throws HttpProblem {
    if (route == Route.UNKNOWN) {
      throw ApiError.NOT_FOUND.problem("no resource at this path");
    }
    if (!route.method.equals(request.getMethod())) {
      throw ApiError.METHOD_NOT_ALLOWED
          .problem("this resource accepts " + route.method + " only")
          .withHeader(HttpHeader.ALLOW.asString(), route.method);
    }
    String tenant = authenticate(request);
    return switch (route) {
      case PUBLISH -> publish(request, tenant, trace);
      case BATCH -> batch(request, tenant, trace);
      case JOB -> job(path.substring(JOB_PREFIX.length()), tenant);
      case UNKNOWN -> throw new IllegalStateException("unreachable");
    };
  }

  private String authenticate(Request request) throws HttpProblem {
    String tenant =
        authenticator
            .tenantOf(request.getHeaders().get(HttpHeader.AUTHORIZATION))
            .orElseThrow(() -> ApiError.UNAUTHORIZED.problem("a valid bearer token is required"));
    MDC.put("tenant", tenant);
    return tenant;
  }

  private Answer publish(Request request, String tenant, TraceContext trace) throws HttpProblem {
    JsonNode root = parser.parseBody(readJsonBody(request));
    PublicationIntent intent = parser.intent(root, tenant, trace);
    Reservation reservation =
        tracing.outboxInsert(tenant, () -> List.of(singles.reserve(intent))).getFirst();
    MDC.put("jobId", reservation.job().id().toString());
    return switch (reservation) {
      case Reservation.Created created -> {
        // DEBUG: at full rate an INFO line per job would cost more than the insert; metrics count
        // them.
        log.debug("Reserved publication job for {}", intent.key());
        yield new Answer(
            201,
            "created",
            ApiBodies.Job.of(created.job()),
            Map.of(HttpHeader.LOCATION.asString(), JOB_PREFIX + created.job().id()));
      }
      case Reservation.Replayed replayed -> {
        log.debug("Replayed publication job for {}", intent.key());
        yield new Answer(200, "replayed", ApiBodies.Job.of(replayed.job()), Map.of());
      }
      case Reservation.Conflict conflict -> {
        log.info(
            "Refused {}: stored payload hash {}, requested {}",
            intent.key(),
            conflict.job().payloadHash(),
            intent.payloadHash());
        yield new Answer(
            409, "conflict", ApiBodies.Conflict.of(conflict.job(), intent.payloadHash()), Map.of());
      }
    };
  }

  private Answer batch(Request request, String tenant, TraceContext trace) throws HttpProblem {
    List<JsonNode> items =
        parser.batchItems(parser.parseBody(readJsonBody(request)), limits.batchMaxItems());
    ApiBodies.Item[] results = new ApiBodies.Item[items.size()];
    List<PublicationIntent> intents = new ArrayList<>(items.size());
    List<Integer> positions = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      try {
        intents.add(parser.intent(items.get(i), tenant, trace));
        positions.add(i);
      } catch (HttpProblem problem) {
        results[i] =
            new ApiBodies.Refused(i, problem.status(), problem.code(), problem.getMessage());
        metrics.batchItem(ApiError.of(problem).outcome());
      }
    }
    List<Reservation> reservations = tracing.outboxInsert(tenant, () -> jobs.reserve(intents));
    int created = 0;
    for (int k = 0; k < reservations.size(); k++) {
      int index = positions.get(k);
      Reservation reservation = reservations.get(k);
      switch (reservation) {
        case Reservation.Created c -> {
          results[index] = new ApiBodies.Reserved(index, 201, ApiBodies.Job.of(c.job()));
          created++;
          metrics.batchItem("created");
        }
        case Reservation.Replayed r -> {
          results[index] = new ApiBodies.Reserved(index, 200, ApiBodies.Job.of(r.job()));
          metrics.batchItem("replayed");
        }
        case Reservation.Conflict c -> {
          results[index] =
              new ApiBodies.Conflicting(
                  index, 409, ApiBodies.Conflict.of(c.job(), intents.get(k).payloadHash()));
          metrics.batchItem("conflict");
        }
      }
    }
    log.debug("Batch of {} publications: {} new jobs", items.size(), created);
    return new Answer(200, "ok", new ApiBodies.Batch(Arrays.asList(results)), Map.of());
  }

  private Answer job(String id, String tenant) throws HttpProblem {
    if (!UUID_TEXT.matcher(id).matches()) {
      throw ApiError.NOT_FOUND.problem("no publication job with this id");
    }
    UUID jobId = UUID.fromString(id);
    MDC.put("jobId", jobId.toString());
    return jobs.find(tenant, jobId)
        .map(job -> new Answer(200, "ok", ApiBodies.JobWithContent.of(job), Map.of()))
        .orElseThrow(() -> ApiError.NOT_FOUND.problem("no publication job " + jobId));
  }

  /**
   * The body, bounded: a declared length over the limit is refused before reading, and an
   * undeclared (chunked) one is read up to one byte past the limit. What is left unread is dealt
   * with when the answer is written.
   */
  private byte[] readJsonBody(Request request) throws HttpProblem {
    if (!isJson(request.getHeaders().get(HttpHeader.CONTENT_TYPE))) {
      throw ApiError.UNSUPPORTED_MEDIA_TYPE.problem(
          "the request body must be application/json (UTF-8)");
    }
    long declared = request.getLength();
    if (declared > limits.requestMaxBytes()) {
      throw tooLarge();
    }
    InputStream in = Content.Source.asInputStream(request);
    try {
      byte[] body = in.readNBytes(limits.requestMaxBytes() + 1);
      if (body.length > limits.requestMaxBytes()) {
        throw tooLarge();
      }
      request.setAttribute(BODY_READ, Boolean.TRUE);
      return body;
    } catch (IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof TimeoutException) {
          throw ApiError.REQUEST_TIMEOUT.problem("the request body did not arrive in time");
        }
      }
      throw ApiError.UNREADABLE_BODY.problem(
          "the request body could not be read: " + e.getMessage());
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
    long max = (long) DISCARD_FACTOR * limits.requestMaxBytes();
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

  private HttpProblem tooLarge() {
    return ApiError.PAYLOAD_TOO_LARGE.problem(
        "the request body is larger than " + limits.requestMaxBytes() + " bytes");
  }

  /** {@code application/json}, with no charset or UTF-8 (RFC 8259 allows nothing else). */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String[] parts = contentType.split(";");
    if (!parts[0].strip().equalsIgnoreCase(JsonHttp.JSON)) {
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
    answer.headers().forEach((name, value) -> response.getHeaders().put(name, value));
    if (request.getLength() != 0
        && request.getAttribute(BODY_READ) == null
        && !discardRest(request)) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    JsonHttp.write(response, callback, answer.status(), JsonHttp.JSON, bytes, false);
  }
}
