package io.herald.writer.http;

import io.herald.runtime.http.HttpProblem;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The writer's catalogue of refusals, each an {@link HttpProblem} (runtime's one error type and
 * body): the HTTP status, the stable {@code error} code clients may branch on, and the {@code
 * outcome} tag under which the request is counted ({@code herald.writer.http.requests}).
 */
enum ApiError {
  MALFORMED_JSON(400, "malformed_json", "invalid"),
  INVALID_REQUEST(400, "invalid_request", "invalid"),
  UNREADABLE_BODY(400, "unreadable_body", "invalid"),
  UNAUTHORIZED(401, "unauthorized", "unauthorized"),
  NOT_FOUND(404, "not_found", "not_found"),
  METHOD_NOT_ALLOWED(405, "method_not_allowed", "invalid"),
  REQUEST_TIMEOUT(408, "request_timeout", "invalid"),
  PAYLOAD_CONFLICT(409, "payload_conflict", "conflict"),
  PAYLOAD_TOO_LARGE(413, "payload_too_large", "too_large"),
  BATCH_TOO_LARGE(413, "batch_too_large", "too_large"),
  UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type", "unsupported_media_type"),
  UNKNOWN_DESTINATION(422, "unknown_destination", "invalid"),
  INTERNAL_ERROR(500, "internal_error", "error"),
  DATABASE_UNAVAILABLE(503, "database_unavailable", "unavailable");

  private static final Map<String, ApiError> BY_CODE =
      Arrays.stream(values())
          .collect(Collectors.toUnmodifiableMap(e -> e.code, Function.identity()));

  private final int status;
  private final String code;
  private final String outcome;

  ApiError(int status, String code, String outcome) {
    this.status = status;
    this.code = code;
    this.outcome = outcome;
  }

  /** This refusal with {@code message}; a 401 carries the bearer challenge. */
  HttpProblem problem(String message) {
    return this == UNAUTHORIZED
        ? HttpProblem.unauthorized(message)
        : new HttpProblem(status, code, message);
  }

  /** The entry a problem was made from; {@link #INTERNAL_ERROR} for one from elsewhere. */
  static ApiError of(HttpProblem problem) {
    ApiError error = BY_CODE.get(problem.code());
    return error != null && error.status == problem.status() ? error : INTERNAL_ERROR;
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  String outcome() {
    return outcome;
  }
}
