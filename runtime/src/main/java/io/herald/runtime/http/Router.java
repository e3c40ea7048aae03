package io.herald.runtime.http;

import io.herald.runtime.db.SqlFailure;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's small HTTP layer on Jetty 12 core handlers: routes by method and path template ({@code
 * /v1/deliveries/{id}/actions}), an optional guard (authentication) in front of every route, and
 * the one error mapping of every Herald API:
 *
 * <ul>
 *   <li>{@link HttpProblem}: its status and {@code {"error","message"}} body;
 *   <li>a {@link SQLException}: 503 {@code database_unavailable} with {@code Retry-After} when
 *       {@link SqlFailure} calls it retriable, else 500 {@code internal_error}; never the SQL or
 *       driver text;
 *   <li>anything else: 500 {@code internal_error} with a reference id that is also in the log line
 *       carrying the stack trace; never exception text.
 * </ul>
 *
 * <p>A path no template matches is declined ({@code handle} returns false), so routers and other
 * handlers can share one server; a path that matches with another method answers 405 with {@code
 * Allow}. HEAD is answered like GET, without a body. Routes run on Jetty's request thread and may
 * block. Immutable and thread-safe once built.
 *
 * <pre>{@code
 * Router api = Router.builder("operator API")
 *     .guard(request -> bearer.check(request))
 *     .get("/v1/deliveries/{id}", call -> Reply.ok(view(call.uuid("id"))))
 *     .build();
 * }</pre>
 */
public final class Router extends Handler.Abstract {

  private static final Logger log = LoggerFactory.getLogger(Router.class);

  /** What a route answers: a status and a body Jackson writes (or raw bytes). */
  public record Reply(int status, Object body, String contentType, byte[] raw) {

    public Reply {
      if (status < 100 || status > 599) {
        throw new IllegalArgumentException("not an HTTP status: " + status);
      }
    }

    /** 200 with {@code body} as JSON. */
    public static Reply ok(Object body) {
      return json(200, body);
    }

    /** {@code status} with {@code body} as JSON. */
    public static Reply json(int status, Object body) {
      return new Reply(status, Objects.requireNonNull(body, "body"), JsonHttp.JSON, null);
    }

    /** {@code status} with {@code text} as it is, of {@code contentType}. */
    public static Reply text(int status, String contentType, String text) {
      return new Reply(status, null, contentType, JsonHttp.utf8(text));
    }
  }

  /** One route's work. */
  @FunctionalInterface
  public interface Route {
    Reply handle(Call call) throws Exception;
  }

  /** Runs before every route; throws to refuse the request. */
  @FunctionalInterface
  public interface Guard {
    void check(Request request) throws HttpProblem;
  }

  /** One request as a route sees it: the Jetty request, path parameters, query and body. */
  public static final class Call {
    private final Request request;
    private final Map<String, String> parameters;
    private Fields query;

    Call(Request request, Map<String, String> parameters) {
      this.request = request;
      this.parameters = parameters;
    }

    public Request request() {
      return request;
    }

    /** A path parameter of the route's template. */
    public String path(String name) {
      String value = parameters.get(name);
      if (value == null) {
        throw new IllegalArgumentException("the route has no parameter {" + name + "}");
      }
      return value;
    }

    /**
     * A path parameter that must be a UUID. A malformed one names no resource, so it is a 404, as
     * for any id that does not exist.
     */
    public UUID uuid(String name) throws HttpProblem {
      String text = path(name);
      try {
        UUID id = UUID.fromString(text);
        if (id.toString().equalsIgnoreCase(text)) {
          return id;
        }
      } catch (IllegalArgumentException e) {
        // answered below
      }
      throw HttpProblem.notFound("no " + name + " " + text);
    }

    /** A query parameter, if present. */
    public Optional<String> query(String name) {
      if (query == null) {
        query = Request.extractQueryParameters(request);
      }
      return Optional.ofNullable(query.getValue(name));
    }

    /** The body as {@code type}, read with the bound of {@link JsonHttp#readBody}. */
    public <T> T body(int maxBytes, Class<T> type) throws HttpProblem {
      return JsonHttp.readBody(request, maxBytes, type);
    }
  }

  private record Template(String method, String[] segments, Route route) {

    Map<String, String> match(String[] path) {
      if (path.length != segments.length) {
        return null;
      }
      Map<String, String> parameters = new LinkedHashMap<>();
      for (int i = 0; i < segments.length; i++) {
        String segment = segments[i];
        if (segment.startsWith("{") && segment.endsWith("}")) {
          if (path[i].isEmpty()) {
            return null;
          }
          parameters.put(segment.substring(1, segment.length() - 1), path[i]);
        } else if (!segment.equals(path[i])) {
          return null;
        }
      }
      return parameters;
    }
  }

  private final String name;
  private final Guard guard;
  private final String retryAfterSeconds;
  private final List<Template> templates;

  private Router(Builder builder) {
    super(InvocationType.BLOCKING);
    this.name = builder.name;
    this.guard = builder.guard;
    this.retryAfterSeconds = Long.toString(Math.max(1, builder.retryAfter.toSeconds()));
    this.templates = List.copyOf(builder.templates);
  }

  /** A router named {@code name} in logs ({@code operator API}). */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String[] segments = split(path);
    String method = request.getMethod();
    boolean head = HttpMethod.HEAD.is(method);
    String effective = head ? "GET" : method;
    Set<String> allowed = new LinkedHashSet<>();
    Template chosen = null;
    Map<String, String> parameters = null;
    for (Template template : templates) {
      Map<String, String> match = template.match(segments);
      if (match == null) {
        continue;
      }
      allowed.add(template.method());
      if (chosen == null && template.method().equals(effective)) {
        chosen = template;
        parameters = match;
      }
    }
    if (allowed.isEmpty()) {
      return false;
    }
    if (chosen == null) {
      if (allowed.contains("GET")) {
        allowed.add("HEAD");
      }
      JsonHttp.write(
          response,
          callback,
          new HttpProblem(405, "method_not_allowed", method + " is not allowed on " + path)
              .withHeader(HttpHeader.ALLOW.asString(), String.join(", ", allowed)));
      return true;
    }
    Reply reply;
    try {
      if (guard != null) {
        guard.check(request);
      }
      reply = chosen.route().handle(new Call(request, parameters));
    } catch (HttpProblem problem) {
      JsonHttp.write(response, callback, problem);
      return true;
    } catch (Exception e) {
      JsonHttp.write(response, callback, mapFailure(method, path, e));
      return true;
    }
    if (reply.raw() != null) {
      JsonHttp.write(response, callback, reply.status(), reply.contentType(), reply.raw(), head);
    } else if (head) {
      JsonHttp.write(response, callback, reply.status(), reply.contentType(), new byte[0], true);
    } else {
      JsonHttp.write(response, callback, reply.status(), reply.body());
    }
    return true;
  }

  /** The one mapping of unexpected failures to answers: diagnosis in the log, none in the body. */
  HttpProblem mapFailure(String method, String path, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    String reference = UUID.randomUUID().toString();
    if (e instanceof SQLException sql && SqlFailure.isRetriable(sql)) {
      log.warn(
          "{}: {} {} found the database unavailable (reference {})",
          name,
          method,
          path,
          reference,
          e);
      return new HttpProblem(
              503,
              "database_unavailable",
              "the database is unavailable; retry later (reference " + reference + ")")
          .withHeader(HttpHeader.RETRY_AFTER.asString(), retryAfterSeconds);
    }
    log.error("{}: {} {} failed (reference {})", name, method, path, reference, e);
    return new HttpProblem(500, "internal_error", "internal error (reference " + reference + ")");
  }

  private static String[] split(String path) {
    String trimmed = path.startsWith("/") ? path.substring(1) : path;
    return trimmed.split("/", -1);
  }

  /** Collects routes; not thread-safe. */
  public static final class Builder {
    private final String name;
    private final List<Template> templates = new ArrayList<>();
    private Guard guard;
    private Duration retryAfter = Duration.ofSeconds(1);

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * What a 503 {@code database_unavailable} tells clients to wait (default 1s, whole seconds).
     */
    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
      return this;
    }

    /** Checks every request before its route runs (authentication). */
    public Builder guard(Guard guard) {
      this.guard = Objects.requireNonNull(guard, "guard");
      return this;
    }

    public Builder get(String template, Route route) {
      return add("GET", template, route);
    }

    public Builder post(String template, Route route) {
      return add("POST", template, route);
    }

    public Builder add(String method, String template, Route route) {
      Objects.requireNonNull(route, "route");
      if (!template.startsWith("/")) {
        throw new IllegalArgumentException("a route template starts with '/': " + template);
      }
      templates.add(new Template(method, split(template), route));
      return this;
    }

    public Router build() {
      return new Router(this);
    }
  }
}
