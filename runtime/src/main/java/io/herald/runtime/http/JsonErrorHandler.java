package io.herald.runtime.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty produces itself (unparseable requests, oversized headers, requests the
 * concurrency limit turned away, failures outside the API handler) as JSON {@code {"error",
 * "message"}} like every other error of the API, with no exception detail. A 503 carries {@code
 * Retry-After}.
 */
public final class JsonErrorHandler extends ErrorHandler {

  private final String retryAfterSeconds;

  public JsonErrorHandler(Duration retryAfter) {
    this.retryAfterSeconds = Long.toString(Math.max(1, retryAfter.toSeconds()));
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    if (status < 400) {
      status = HttpStatus.INTERNAL_SERVER_ERROR_500;
      response.setStatus(status);
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    if (status == HttpStatus.SERVICE_UNAVAILABLE_503) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, retryAfterSeconds);
    }
    response.write(true, ByteBuffer.wrap(body(status)), callback);
    return true;
  }

  static byte[] body(int status) {
    String json =
        "{\"error\":\""
            + code(status)
            + "\",\"message\":\""
            + HttpStatus.getMessage(status)
            + "\"}";
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private static String code(int status) {
    return switch (status) {
      case 400 -> "bad_request";
      case 404 -> "not_found";
      case 405 -> "method_not_allowed";
      case 408 -> "request_timeout";
      case 413 -> "payload_too_large";
      case 414 -> "uri_too_long";
      case 431 -> "headers_too_large";
      case 503 -> "overloaded";
      default -> status >= 500 ? "internal_error" : "http_" + status;
    };
  }
}
