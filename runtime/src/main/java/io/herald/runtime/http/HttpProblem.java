package io.herald.runtime.http;

import java.util.Objects;

/**
 * A request Herald refuses, answered as {@code {"error": code, "message": message}} with {@code
 * status}. The code is stable (clients may branch on it); the message is for people and never holds
 * exception text, SQL or a stack trace. Expected control flow, so it fills no stack trace.
 */
public final class HttpProblem extends Exception {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  public HttpProblem(int status, String code, String message) {
    super(Objects.requireNonNull(message, "message"), null, false, false);
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("not an error status: " + status);
    }
    this.status = status;
    this.code = Objects.requireNonNull(code, "code");
  }

  /** 400 with a code naming what is wrong ({@code invalid_request}, {@code malformed_json}). */
  public static HttpProblem badRequest(String code, String message) {
    return new HttpProblem(400, code, message);
  }

  /** 401 {@code unauthorized}. */
  public static HttpProblem unauthorized(String message) {
    return new HttpProblem(401, "unauthorized", message);
  }

  /** 404 {@code not_found}. */
  public static HttpProblem notFound(String message) {
    return new HttpProblem(404, "not_found", message);
  }

  /** 413 {@code payload_too_large}. */
  public static HttpProblem tooLarge(String message) {
    return new HttpProblem(413, "payload_too_large", message);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** The JSON body of this answer. */
  public ErrorBody body() {
    return new ErrorBody(code, getMessage());
  }

  /** Every error body Herald answers with. */
  public record ErrorBody(String error, String message) {}
}
