package io.herald.consumer.destination;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

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
 *   <tr><td>409 at a destination whose profile says {@code conflict=exists}</td><td>Published</td><td>the key's article exists (id from the configured header or field)</td></tr>
 *   <tr><td>408, 409, 429, 503</td><td>Retry</td><td>explicitly not processed (409: same key in flight)</td></tr>
 *   <tr><td>an error carrying the replay marker where errors are replayed</td><td>ReplayedError</td><td>the saved answer of an earlier attempt</td></tr>
 *   <tr><td>other 4xx</td><td>Permanent</td><td>the destination refuses this article</td></tr>
 *   <tr><td>3xx, other 5xx</td><td>Uncertain</td><td>the request may have been processed</td></tr>
 *   <tr><td>connect refused or timed out, unknown host</td><td>Retry</td><td>nothing was sent</td></tr>
 *   <tr><td>request timeout, broken connection, interrupt</td><td>Uncertain</td><td>sent, answer lost</td></tr>
 *   <tr><td>answer over {@link BoundedBody#MAX_BYTES}, or unfinished at the call's deadline</td>
 *       <td>Uncertain</td><td>sent, answer unreadable</td></tr>
 * </table>
 *
 * <p>Where the remote id is, what a 409 means, whether a replayed error is recognised and whether
 * {@code Retry-After} counts come from the destination's {@link DestinationProfile}; the methods
 * without a profile use {@link #DEFAULT}.
 */
public final class OutcomeClassifier {

  private OutcomeClassifier() {}

  /** Remote ids at {@code /id}, 409 in flight, no replayed errors, Retry-After honoured. */
  public static final DestinationProfile DEFAULT = DestinationProfile.Preset.NONE.profile();

  public static Outcome classify(int status, String body, String retryAfterHeader) {
    return classify(
        DEFAULT,
        status,
        body,
        name ->
            name.equalsIgnoreCase("Retry-After") ? Optional.ofNullable(retryAfterHeader) : null);
  }

  /**
   * Classifies a publish answer at a destination with {@code profile}.
   *
   * @param headers the answer's first value of a header by name (case-insensitive), empty when
   *     absent
   */
  public static Outcome classify(
      DestinationProfile profile,
      int status,
      String body,
      Function<String, Optional<String>> headers) {
    if (status >= 200 && status < 300) {
      String remoteId = remoteId(body, profile.remoteIdField());
      return remoteId != null
          ? new Outcome.Published(remoteId, status)
          : new Outcome.Uncertain(
              "HTTP " + status + " without a remote id: " + abbreviate(body), status);
    }
    String what = "HTTP " + status + ": " + abbreviate(body);
    if (status == 409 && profile.conflict() == DestinationProfile.Conflict.EXISTS) {
      String remoteId =
          profile.conflictIdHeader().isPresent()
              ? header(headers, profile.conflictIdHeader().get()).orElse(null)
              : remoteId(body, profile.remoteIdField());
      return remoteId != null && !remoteId.isBlank()
          ? new Outcome.Published(remoteId, status)
          : new Outcome.Uncertain(
              "HTTP 409: the key's article exists but the answer names no remote id: "
                  + abbreviate(body),
              status);
    }
    boolean permanent =
        status >= 400 && status < 500 && status != 408 && status != 409 && status != 429;
    if (!permanent && replayed(profile, headers)) {
      return new Outcome.ReplayedError(
          what + " (replayed for the key: " + profile.replayMarkerHeader().orElseThrow() + ")",
          status);
    }
    Duration retryAfter =
        profile.honourRetryAfter() ? retryAfter(header(headers, "Retry-After").orElse(null)) : null;
    return switch (status) {
      case 408, 409, 429, 503 -> new Outcome.Retry(what, retryAfter, status);
      default -> {
        if (permanent) {
          yield new Outcome.Permanent(what, status);
        }
        yield new Outcome.Uncertain(what, status);
      }
    };
  }

  private static boolean replayed(
      DestinationProfile profile, Function<String, Optional<String>> headers) {
    return profile.errorsReplayed()
        && profile.replayMarkerHeader().flatMap(marker -> header(headers, marker)).isPresent();
  }

  private static Optional<String> header(Function<String, Optional<String>> headers, String name) {
    Optional<String> value = headers.apply(name);
    return value == null ? Optional.empty() : value;
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
    return classifyLookup(DEFAULT, status, body);
  }

  /** Classifies a lookup answer, the remote id at the profile's {@code lookup-id-field}. */
  public static LookupResult classifyLookup(DestinationProfile profile, int status, String body) {
    if (status == 200) {
      String remoteId = remoteId(body, profile.lookupIdField());
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

  /** The id at JSON pointer {@code field} of {@code body}: text or an integer, not blank. */
  private static String remoteId(String body, String field) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      JsonNode json = Json.mapper().readTree(body);
      JsonNode id = json == null ? null : json.at(field);
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
