package io.herald.writer.http;

/**
 * Every error the API answers with: the HTTP status, the stable {@code error} code clients may
 * branch on, and the {@code outcome} tag under which the request is counted.
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
  INTERNAL_ERROR(500, "internal_error", "error"),
  DATABASE_UNAVAILABLE(503, "database_unavailable", "unavailable");

  private final int status;
  private final String code;
  private final String outcome;

  ApiError(int status, String code, String outcome) {
    this.status = status;
    this.code = code;
    this.outcome = outcome;
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
