package io.herald.consumer.destination;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.json.CanonicalJson;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.trace.DeliveryTracing;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Talks to one destination publishing API over HTTP ({@code java.net.http}) as its {@link
 * DestinationProfile} says. Sends the delivery's idempotency key in the profile's key header (when
 * it has one) and as the article's {@code externalReference} on every attempt, sends the W3C trace
 * context (its client span's under an SDK, the stored one otherwise: {@link DeliveryTracing}),
 * looks articles up at the profile's lookup path, spaces requests by its rate limit, and turns
 * every answer into an {@link Outcome} through {@link OutcomeClassifier}. It never throws for a
 * remote failure. Every request carries the claim's fencing token in {@value
 * #FENCING_TOKEN_HEADER}, so that a cooperating destination can refuse a late request from a claim
 * that was taken over (docs/design.md, "Fencing on the wire").
 *
 * <p>Thread-safe; one instance per destination, shared by all dispatch workers.
 */
public final class DestinationClient implements Destination {

  /**
   * The request header carrying the claim's fencing token ({@code consumer.delivery.claim_token}, a
   * decimal number that grows with every claim of the delivery) on every publish and lookup.
   */
  public static final String FENCING_TOKEN_HEADER = "Herald-Fencing-Token";

  /** The client spans' names (docs/design.md, "Tracing"). */
  public static final String PUBLISH_SPAN = "publish";

  public static final String LOOKUP_SPAN = "look up";

  private final DestinationConfig config;
  private final HttpClient http;
  private final RateLimiter rateLimiter;
  private final DeliveryTracing tracing;

  /** A client without spans: the stored trace context goes to the destination unchanged. */
  public DestinationClient(DestinationConfig config, Executor executor) {
    this(config, executor, DeliveryTracing.NOOP);
  }

  /** A client whose calls are {@code tracing}'s client spans, their context sent along. */
  public DestinationClient(DestinationConfig config, Executor executor, DeliveryTracing tracing) {
    this.config = config;
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    this.rateLimiter = new RateLimiter(config.profile().rateLimit(), System::nanoTime);
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(config.connectTimeout())
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(executor)
            .build();
  }

  @Override
  public DestinationConfig config() {
    return config;
  }

  @Override
  public Outcome publish(ClaimedDelivery delivery) {
    String body;
    try {
      body = body(delivery);
    } catch (JsonProcessingException e) {
      return new Outcome.Permanent("stored content is not JSON: " + e.getOriginalMessage());
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(articles(""))
            .timeout(config.readTimeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    config
        .profile()
        .idempotencyHeader()
        .ifPresent(header -> request.header(header, delivery.idempotencyKey()));
    Span call = tracing.call(PUBLISH_SPAN, "POST", delivery, config.name());
    call.setAttribute(
        DeliveryTracing.IDEMPOTENCY_KEY, config.profile().idempotencyHeader().isPresent());
    try {
      decorate(request, delivery, call);
      Outcome outcome = send(request);
      DeliveryTracing.ended(
          call, outcome.label(), outcome.httpStatus(), outcome instanceof Outcome.Published);
      return outcome;
    } finally {
      call.end();
    }
  }

  private Outcome send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = exchange(request.build());
      return OutcomeClassifier.classify(
          config.profile(),
          response.statusCode(),
          response.body(),
          name -> response.headers().firstValue(name));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OutcomeClassifier.classify(e);
    } catch (IOException | RuntimeException e) {
      return OutcomeClassifier.classify(e);
    }
  }

  /**
   * SHA-256 (hex) of the body {@link #publish} sends for {@code delivery}: the body is a pure
   * function of the delivery (the same fields, the stored content re-serialized by the same
   * mapper), so this is the hash of the bytes sent. Null when there is no body to send (content not
   * JSON).
   */
  @Override
  public String requestHash(ClaimedDelivery delivery) {
    try {
      return sha256Hex(body(delivery));
    } catch (JsonProcessingException e) {
      // publish answers Permanent for the same parse failure without sending: nothing to hash.
      return null;
    }
  }

  /** SHA-256 of {@code text}'s UTF-8 bytes (the bytes sent), 64 lower-case hex digits. */
  static String sha256Hex(String text) {
    return CanonicalJson.sha256Hex(text.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void awaitTurn() throws InterruptedException {
    rateLimiter.acquire();
  }

  /**
   * Looks the delivery's article up by its external reference (the idempotency key) at the
   * profile's lookup path; a destination without one answers {@link LookupResult.Unavailable}.
   */
  @Override
  public LookupResult lookUp(ClaimedDelivery delivery) {
    if (config.profile().lookupPath().isEmpty()) {
      return new LookupResult.Unavailable("the destination's profile has no lookup-path");
    }
    URI uri =
        under(
            config
                .profile()
                .lookupPath()
                .get()
                .replace(
                    DestinationProfile.REFERENCE,
                    URLEncoder.encode(delivery.idempotencyKey(), StandardCharsets.UTF_8)));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(config.readTimeout()).GET();
    Span call = tracing.call(LOOKUP_SPAN, "GET", delivery, config.name());
    try {
      decorate(request, delivery, call);
      LookupResult result = sendLookup(request);
      // Found and not found are both answers; only an unavailable lookup failed.
      DeliveryTracing.ended(
          call, result.label(), result.httpStatus(), !(result instanceof LookupResult.Unavailable));
      return result;
    } finally {
      call.end();
    }
  }

  private LookupResult sendLookup(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = exchange(request.build());
      return OutcomeClassifier.classifyLookup(
          config.profile(), response.statusCode(), response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OutcomeClassifier.classifyLookup(e);
    } catch (IOException | RuntimeException e) {
      return OutcomeClassifier.classifyLookup(e);
    }
  }

  /**
   * Sends {@code request} and reads its answer, bounded in time and size. The request's own timeout
   * stops at the response headers ({@code java.net.http} does not time the body), so a destination
   * that drips its body a byte at a time would hold a dispatch worker, and the claim it renews, for
   * as long as it likes; the read timeout here covers the whole exchange, and a late exchange is
   * cancelled, which closes its connection.
   */
  private HttpResponse<String> exchange(HttpRequest request)
      throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<String>> response =
        http.sendAsync(request, BoundedBody.handler());
    try {
      return response.get(config.maxCallDuration().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      response.cancel(true);
      throw new HttpTimeoutException(
          "no complete answer within " + config.maxCallDuration() + " (connect and read timeouts)");
    } catch (InterruptedException e) {
      response.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(cause);
    }
  }

  @Override
  public void close() {
    http.close();
  }

  /** {@code <base-url>/articles}, keeping any path of the base URL ({@code http://h/dest-a}). */
  private URI articles(String query) {
    return under("/articles" + query);
  }

  /** {@code <base-url><path>}, keeping any path of the base URL; {@code path} starts with /. */
  private URI under(String path) {
    String base = config.baseUrl().toString();
    return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
  }

  private void decorate(HttpRequest.Builder request, ClaimedDelivery delivery, Span call) {
    request.header(FENCING_TOKEN_HEADER, Long.toString(delivery.claimToken()));
    config.authToken().ifPresent(token -> request.header("Authorization", "Bearer " + token));
    DeliveryTracing.inject(call, delivery, request);
  }

  private static String body(ClaimedDelivery delivery) throws JsonProcessingException {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("externalReference", delivery.idempotencyKey());
    body.put("tenant", delivery.key().tenant());
    body.put("articleId", delivery.key().articleId());
    body.put("revisionId", delivery.key().revisionId());
    body.set("content", Json.mapper().readTree(delivery.content()));
    return Json.mapper().writeValueAsString(body);
  }
}
