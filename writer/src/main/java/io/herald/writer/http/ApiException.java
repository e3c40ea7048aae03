package io.herald.writer.http;

import java.util.Objects;

/** A request the API refuses; answered as {@code {"error": code, "message": message}}. */
final class ApiException extends Exception {

  private static final long serialVersionUID = 1L;

  private final ApiError error;

  ApiException(ApiError error, String message) {
    super(message, null, false, false); // expected control flow: no stack trace to fill
    this.error = Objects.requireNonNull(error, "error");
  }

  ApiError error() {
    return error;
  }
}
