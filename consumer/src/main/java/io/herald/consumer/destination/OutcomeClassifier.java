package io.herald.consumer.destination;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;

/**
 * The one place that decides what a destination's answer, or the lack of one, means (guarantee 4).
 * The rule: only an outcome that proves the request was not processed may be retried blindly;
 * anything that may have taken effect is {@link Outcome.Uncertain}.
 *
 * <table>
 *   <caption>Publish outcomes</caption>
 *   <tr><th>seen</th><th>outcome</th><th>why</th></tr>
 *   <tr><td>2xx with {@code id}</td><td>Published</td><td>the article exists</td></tr>
 *   <tr><td>2xx without {@code id}</td><td>Uncertain</td><td>accepted, but we cannot record it</td></tr>
 *   <tr><td>408, 409, 429, 503</td><td>Retry</td><td>explicitly not processed (409: same key in flight)</td></tr>
 *   <tr><td>other 4xx</td><td>Permanent</td><td>the destination refuses this article</td></tr>
 *   <tr><td>3xx, other 5xx</td><td>Uncertain</td><td>the request may have been processed</td></tr>
 *   <tr><td>connect refused or timed out, unknown host</td><td>Retry</td><td>nothing was sent</td></tr>
 *   <tr><td>request timeout, broken connection, interrupt</td><td>Uncertain</td><td>sent, answer lost</td></tr>
 *   <tr><td>answer over {@link BoundedBody#MAX_BYTES}, or unfinished at the call's deadline</td>
 *       <td>Uncertain</td><td>sent, answer unreadable</td></tr>
 * </table>
 */
public final class OutcomeClassifier {

  private OutcomeClassifier() {}

  public static Outcome classify(int status, String body, String retryAfterHeader) {
    if (status >= 200 && status < 300) {
      String remoteId = remoteId(body);
      return remoteId != null
          ? new Outcome.Published(remoteId, status)
          : new Outcome.Uncertain(
              "HTTP " + status + " without a remote id: " + abbreviate(body), status);
    }
    String what = "HTTP " + status + ": " + abbreviate(body);
    return switch (status) {
      case 408, 409, 429, 503 -> new Outcome.Retry(what, retryAfter(retryAfterHeader), status);
      default -> {
        if (status >= 400 && status < 500) {
          yield new Outcome.Permanent(what, status);
        }
        yield new Outcome.Uncertain(what, status);
      }
    };
  }

  public static Outcome classify(Throwable failure) {
    if (notSent(failure)) {
      return new Outcome.Retry("not sent: " + describe(failure), null);
    }
    if (failure instanceof HttpTimeoutException) {
      return new Outcome.Uncertain("no answer within the request timeout after sending");
    }
    if (failure instanceof InterruptedException) {
      return new Outcome.Uncertain("interrupted while waiting for the answer");
    }
    if (failure instanceof IOException) {
      return new Outcome.Uncertain("connection broke after sending: " + describe(failure));
    }
    // Anything else is a bug or a misconfiguration on our side, before the request left.
    return new Outcome.Retry("not sent: " + describe(failure), null);
  }

  public static LookupResult classifyLookup(int status, String body) {
    if (status == 200) {
      String remoteId = remoteId(body);
      return remoteId != null
          ? new LookupResult.Found(remoteId, status)
          : new LookupResult.Unavailable(
              "lookup answered 200 without an id: " + abbreviate(body), status);
    }
    if (status == 404) {
      return new LookupResult.NotFound(status);
    }
    return new LookupResult.Unavailable(
        "lookup answered HTTP " + status + ": " + abbreviate(body), status);
  }

  public static LookupResult classifyLookup(Throwable failure) {
    return new LookupResult.Unavailable("lookup failed: " + describe(failure));
  }

  private static boolean notSent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException
          || t instanceof ConnectException
          || t instanceof UnresolvedAddressException
          || t instanceof java.net.UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  private static String remoteId(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      JsonNode json = Json.mapper().readTree(body);
      JsonNode id = json == null ? null : json.get("id");
      if (id != null && (id.isTextual() || id.isIntegralNumber()) && !id.asText().isBlank()) {
        return id.asText();
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  private static Duration retryAfter(String header) {
    if (header == null) {
      return null;
    }
    try {
      long seconds = Long.parseLong(header.trim());
      return seconds >= 0 ? Duration.ofSeconds(seconds) : null;
    } catch (NumberFormatException e) {
      // An HTTP-date Retry-After is rare for APIs; our own backoff applies instead.
      return null;
    }
  }

  private static String describe(Throwable failure) {
    String message = failure.getMessage();
    return failure.getClass().getSimpleName() + (message == null ? "" : " " + message);
  }

  private static String abbreviate(String body) {
    if (body == null) {
      return "";
    }
    return body.length() <= 300 ? body : body.substring(0, 300) + "...";
  }
}
