package io.herald.consumer.destination;

import io.herald.config.Durations;
import io.herald.config.EffectiveConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One destination publishing API: the {@code consumer.destinations.<name>.*} keys, each field named
 * after its key and validated by {@code ConsumerConfig}. Immutable.
 *
 * @param name the destination name used in publication requests
 * @param baseUrl {@code base-url}: where {@code POST /articles} and {@code GET
 *     /articles?externalReference=} live
 * @param idempotencyKeySupported {@code idempotency-key-supported}: the API deduplicates requests
 *     carrying the same {@code Idempotency-Key}, so uncertain outcomes are sent again with that key
 * @param lookupSupported {@code lookup-supported}: the API can find an article by its external
 *     reference, so uncertain outcomes are looked up after {@code consumer.reconcile.grace-period}
 * @param connectTimeout {@code connect-timeout}: nothing sent yet, so a timeout is a definite
 *     failure
 * @param readTimeout {@code read-timeout}: the wait for the answer after sending; a timeout makes
 *     the delivery uncertain
 * @param concurrency {@code concurrency}: in-flight requests per consumer instance
 * @param authToken {@code auth-token}: sent as {@code Authorization: Bearer}; secret, never shown
 */
public record DestinationConfig(
    String name,
    URI baseUrl,
    boolean idempotencyKeySupported,
    boolean lookupSupported,
    Duration connectTimeout,
    Duration readTimeout,
    int concurrency,
    Optional<String> authToken) {

  public DestinationConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(readTimeout, "readTimeout");
    Objects.requireNonNull(authToken, "authToken");
  }

  /** The longest a single call can take: what a dispatch lease must outlast. */
  public Duration maxCallDuration() {
    return connectTimeout.plus(readTimeout);
  }

  /** Credentials in the URL and the token masked: safe to log. */
  @Override
  public String toString() {
    return "DestinationConfig["
        + name
        + ", "
        + EffectiveConfig.maskEmbedded(baseUrl.toString())
        + ", idempotencyKeySupported="
        + idempotencyKeySupported
        + ", lookupSupported="
        + lookupSupported
        + ", connectTimeout="
        + Durations.format(connectTimeout)
        + ", readTimeout="
        + Durations.format(readTimeout)
        + ", concurrency="
        + concurrency
        + ", authToken="
        + (authToken.isPresent() ? "****" : "(none)")
        + "]";
  }
}
