package io.herald.consumer.destination;

import io.herald.config.Durations;
import io.herald.config.EffectiveConfig;
import io.herald.consumer.breaker.BreakerSettings;
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
 * @param profile {@code profile} and the keys refining it: how the API deduplicates (key header,
 *     window, replays, 409), looks articles up, and limits callers
 * @param connectTimeout {@code connect-timeout}: nothing sent yet, so a timeout is a definite
 *     failure
 * @param readTimeout {@code read-timeout}: the wait for the answer after sending; a timeout makes
 *     the delivery uncertain
 * @param concurrency {@code concurrency}: in-flight requests per consumer instance
 * @param authToken {@code auth-token}: sent as {@code Authorization: Bearer}; secret, never shown
 * @param breaker {@code breaker.*}: when the destination's circuit breaker opens and for how long
 */
public record DestinationConfig(
    String name,
    URI baseUrl,
    DestinationProfile profile,
    Duration connectTimeout,
    Duration readTimeout,
    int concurrency,
    Optional<String> authToken,
    BreakerSettings breaker) {

  public DestinationConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(readTimeout, "readTimeout");
    Objects.requireNonNull(authToken, "authToken");
    Objects.requireNonNull(breaker, "breaker");
  }

  /** A destination with the default breaker ({@link BreakerSettings#DEFAULT}). */
  public DestinationConfig(
      String name,
      URI baseUrl,
      DestinationProfile profile,
      Duration connectTimeout,
      Duration readTimeout,
      int concurrency,
      Optional<String> authToken) {
    this(
        name,
        baseUrl,
        profile,
        connectTimeout,
        readTimeout,
        concurrency,
        authToken,
        BreakerSettings.DEFAULT);
  }

  /**
   * Whether the API deduplicates requests carrying the same key (the profile has a key header), so
   * an uncertain outcome may be sent again with that key inside the window.
   */
  public boolean idempotencyKeySupported() {
    return profile.idempotencyHeader().isPresent();
  }

  /** Whether the API finds an article by its external reference (the profile has a lookup). */
  public boolean lookupSupported() {
    return profile.lookupPath().isPresent();
  }

  /**
   * How long after a delivery's first attempt a resend with its key still lands inside the
   * destination's dedup window: the window less one whole call (connect and read timeouts), since a
   * resend started just before the window ends may reach the destination after it. Zero without a
   * key.
   */
  public Duration resendWindow() {
    Duration window = profile.dedupWindow().minus(maxCallDuration());
    return window.isNegative() ? Duration.ZERO : window;
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
        + ", "
        + profile.guarantee()
        + ", "
        + profile
        + ", connectTimeout="
        + Durations.format(connectTimeout)
        + ", readTimeout="
        + Durations.format(readTimeout)
        + ", concurrency="
        + concurrency
        + ", authToken="
        + (authToken.isPresent() ? "****" : "(none)")
        + ", breaker="
        + (breaker.enabled()
            ? breaker.failures() + " failures, open " + Durations.format(breaker.openFor())
            : "off")
        + "]";
  }
}
