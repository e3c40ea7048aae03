package io.herald.cli.monitor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.CliFailure;
import io.herald.cli.deliveries.OperatorApi;
import io.herald.common.json.Json;
import io.herald.consumer.delivery.DeliveryState;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Takes one {@link Observation}: the three processes' {@code /metrics}, the relay's {@code
 * /health}, the oldest uncertain and needs-reconciliation deliveries through the consumer's
 * operator API, and {@link KafkaProbe}'s figures. A source that fails becomes a {@link Reading}
 * with the reason; nothing here throws for an unreachable source. Not thread-safe.
 */
final class Probe implements AutoCloseable {

  /** One HTTP request to a process's ops port. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /** The operator API's largest page: the oldest is looked for among the first this many. */
  static final int OLDEST_AMONG = 1000;

  static final List<DeliveryState> WATCHED =
      List.of(
          DeliveryState.UNCERTAIN,
          DeliveryState.NEEDS_RECONCILIATION,
          DeliveryState.UNKNOWN_DESTINATION);

  private final HttpClient http;
  private final Clock clock;
  private final Reading<URI> writer;
  private final Reading<URI> relay;
  private final Reading<URI> consumer;
  private final Reading<OperatorApi> operator;
  private final Reading<KafkaProbe> kafka;

  Probe(
      HttpClient http,
      Clock clock,
      Reading<URI> writer,
      Reading<URI> relay,
      Reading<URI> consumer,
      Reading<OperatorApi> operator,
      Reading<KafkaProbe> kafka) {
    this.http = http;
    this.clock = clock;
    this.writer = writer;
    this.relay = relay;
    this.consumer = consumer;
    this.operator = operator;
    this.kafka = kafka;
  }

  Observation sample() {
    Instant at = clock.instant();
    return new Observation(
        at,
        scrape(writer),
        scrape(relay),
        call(relay, "/health", true, body -> RelayHealth.parse(json(body))),
        scrape(consumer),
        oldest(),
        kafka.reached() ? kafka.value().read() : passOn(kafka));
  }

  private Reading<Scrape> scrape(Reading<URI> base) {
    return call(base, "/metrics", false, Scrape::parse);
  }

  /**
   * GET {@code path} on {@code base}; 200 (and 503 where {@code anyHealthStatus}: {@code /health}
   * answers 503 with its checks when one is down) is read by {@code read}.
   */
  private <T> Reading<T> call(
      Reading<URI> base, String path, boolean anyHealthStatus, Function<String, T> read) {
    if (!base.reached()) {
      return passOn(base);
    }
    URI uri = base.value().resolve(path);
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      return Reading.unreachable("no answer within " + REQUEST_TIMEOUT.toSeconds() + " s");
    } catch (ConnectException e) {
      // The JDK's client leaves the message of a refused connection empty.
      return Reading.unreachable("connection refused");
    } catch (IOException e) {
      return Reading.unreachable(e.getMessage() == null ? e.toString() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Reading.unreachable("interrupted");
    }
    int status = response.statusCode();
    if (status != 200 && !(anyHealthStatus && status == 503)) {
      return Reading.unreachable(uri + " answered " + status);
    }
    try {
      return Reading.of(read.apply(response.body()));
    } catch (IllegalArgumentException e) {
      return Reading.unreachable(uri + " answered something else: " + e.getMessage());
    }
  }

  private Reading<Map<String, Instant>> oldest() {
    if (!operator.reached()) {
      return passOn(operator);
    }
    Map<String, Instant> oldest = new HashMap<>();
    try {
      for (DeliveryState state : WATCHED) {
        OperatorApi api = operator.value();
        for (JsonNode delivery : api.json(api.list(state.name(), OLDEST_AMONG))) {
          Instant since = since(delivery);
          if (since != null) {
            oldest.merge(state.name(), since, (a, b) -> a.isBefore(b) ? a : b);
          }
        }
      }
    } catch (CliFailure e) {
      return Reading.unreachable(e.getMessage());
    }
    return Reading.of(oldest);
  }

  /** When the delivery became uncertain, else when it last changed. */
  private static Instant since(JsonNode delivery) {
    String text = delivery.path("uncertainSince").asText(null);
    if (text == null || text.isEmpty()) {
      text = delivery.path("updatedAt").asText(null);
    }
    try {
      return text == null ? null : Instant.parse(text);
    } catch (DateTimeParseException e) {
      // Not the API's ISO-8601: that delivery's age is unknown; the count still shows it.
      return null;
    }
  }

  /** The problem of a source that could not be set up, as this sample's reading. */
  private static <T> Reading<T> passOn(Reading<?> source) {
    return source.configured()
        ? Reading.unreachable(source.problem())
        : Reading.notConfigured(source.problem());
  }

  private static JsonNode json(String body) {
    try {
      return Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public void close() {
    if (kafka.reached()) {
      kafka.value().close();
    }
  }
}
