package io.herald.runtime.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A request Herald refuses, answered as {@code {"error": code, "message": message}} with {@code
 * status} and any {@link #headers()} the status calls for ({@code WWW-Authenticate} on 401, {@code
 * Retry-After} on 503, {@code Allow} on 405). The code is stable (clients may branch on it); the
 * message is for people and never holds exception text, SQL or a stack trace. Expected control
 * flow, so it fills no stack trace. Immutable.
 */
public final class HttpProblem extends Exception {

  private static final long serialVersionUID = 1L;

  /** The challenge of every 401: all Herald APIs take a bearer token. */
  static final String BEARER_CHALLENGE = "Bearer realm=\"herald\"";

  private final int status;
  private final String code;
  private final Map<String, String> headers;

  public HttpProblem(int status, String code, String message) {
    this(status, code, message, Map.of());
  }

  private HttpProblem(int status, String code, String message, Map<String, String> headers) {
    super(Objects.requireNonNull(message, "message"), null, false, false);
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("not an error status: " + status);
    }
    this.status = status;
    this.code = Objects.requireNonNull(code, "code");
    this.headers = headers;
  }

  /** 400 with a code naming what is wrong ({@code invalid_request}, {@code malformed_json}). */
  public static HttpProblem badRequest(String code, String message) {
    return new HttpProblem(400, code, message);
  }

  /** 401 {@code unauthorized}, with the bearer challenge RFC 9110 requires of a 401. */
  public static HttpProblem unauthorized(String message) {
    return new HttpProblem(401, "unauthorized", message)
        .withHeader("WWW-Authenticate", BEARER_CHALLENGE);
  }

  /** 404 {@code not_found}. */
  public static HttpProblem notFound(String message) {
    return new HttpProblem(404, "not_found", message);
  }

  /** 413 {@code payload_too_large}. */
  public static HttpProblem tooLarge(String message) {
    return new HttpProblem(413, "payload_too_large", message);
  }

  /** This problem with one more response header (replacing one of the same name). */
  public HttpProblem withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return new HttpProblem(status, code, getMessage(), Map.copyOf(more));
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** Response headers to send with the answer; empty for most problems. */
  public Map<String, String> headers() {
    return headers;
  }

  /** The JSON body of this answer. */
  public ErrorBody body() {
    return new ErrorBody(code, getMessage());
  }

  /** Every error body Herald answers with. */
  public record ErrorBody(String error, String message) {}
}
