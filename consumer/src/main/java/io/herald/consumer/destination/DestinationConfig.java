package io.herald.consumer.destination;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * One destination publishing API, as configured under {@code consumer.destination.<name>.*}.
 *
 * @param name the destination name used in publication requests
 * @param baseUri where {@code POST /articles} and {@code GET /articles?externalReference=} live
 * @param honoursIdempotencyKey the API deduplicates requests carrying the same {@code
 *     Idempotency-Key}: uncertain outcomes are simply retried with the same key
 * @param supportsLookup the API can find an article by its external reference: uncertain outcomes
 *     are looked up after {@code lookupGrace}
 * @param lookupGrace how long after an uncertain attempt a lookup's "not found" is trusted: longer
 *     than the API can take to process a request it has accepted
 * @param concurrency in-flight requests per consumer instance
 * @param bearerToken sent as {@code Authorization: Bearer}, null for none (secret)
 */
public record DestinationConfig(
    String name,
    URI baseUri,
    boolean honoursIdempotencyKey,
    boolean supportsLookup,
    Duration connectTimeout,
    Duration requestTimeout,
    Duration lookupGrace,
    int concurrency,
    String bearerToken) {

  public DestinationConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(baseUri, "baseUri");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(lookupGrace, "lookupGrace");
    String scheme = baseUri.getScheme();
    if (!"http".equals(scheme) && !"https".equals(scheme)) {
      throw new IllegalArgumentException(
          "consumer.destination." + name + ".base-url must be http(s): " + baseUri);
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException(
          "consumer.destination." + name + ".connect-timeout must be positive: " + connectTimeout);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException(
          "consumer.destination." + name + ".request-timeout must be positive: " + requestTimeout);
    }
    if (lookupGrace.isNegative()) {
      throw new IllegalArgumentException(
          "consumer.destination." + name + ".lookup-grace must not be negative: " + lookupGrace);
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException(
          "consumer.destination." + name + ".concurrency must be at least 1: " + concurrency);
    }
  }

  /** The longest a single call can take: what a dispatch lease must outlast. */
  public Duration maxCallDuration() {
    return connectTimeout.plus(requestTimeout);
  }

  @Override
  public String toString() {
    return "DestinationConfig[name="
        + name
        + ", baseUri="
        + baseUri
        + ", honoursIdempotencyKey="
        + honoursIdempotencyKey
        + ", supportsLookup="
        + supportsLookup
        + ", connectTimeout="
        + connectTimeout
        + ", requestTimeout="
        + requestTimeout
        + ", lookupGrace="
        + lookupGrace
        + ", concurrency="
        + concurrency
        + ", bearerToken="
        + (bearerToken == null ? "none" : "****")
        + "]";
  }
}
