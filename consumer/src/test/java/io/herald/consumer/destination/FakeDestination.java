package io.herald.consumer.destination;

import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.policy.Capabilities;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** A destination that answers as told, for dispatcher and reconciler tests. Thread-safe. */
public final class FakeDestination implements Destination {

  private final DestinationConfig config;
  private volatile Function<ClaimedDelivery, Outcome> publish =
      claim -> new Outcome.Published("art-" + claim.id());
  private volatile Function<ClaimedDelivery, LookupResult> lookUp =
      claim -> new LookupResult.Unavailable("no lookup scripted");
  public final List<ClaimedDelivery> published = Collections.synchronizedList(new ArrayList<>());
  public final List<ClaimedDelivery> lookedUp = Collections.synchronizedList(new ArrayList<>());
  public volatile boolean closed;

  public FakeDestination(String name, boolean idempotent, boolean lookup) {
    this(name, idempotent, lookup, BreakerSettings.DEFAULT);
  }

  /** A destination whose circuit breaker opens as {@code breaker} says. */
  public FakeDestination(String name, boolean idempotent, boolean lookup, BreakerSettings breaker) {
    this(name, idempotent, lookup, breaker, 2);
  }

  /** A destination taking {@code concurrency} calls at once, each taking {@code callTime}. */
  public FakeDestination(String name, int concurrency, Duration callTime) {
    this(name, false, false, BreakerSettings.DEFAULT, concurrency);
    publish =
        claim -> {
          try {
            Thread.sleep(callTime); // the remote API's time, not a wait for a condition
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new Outcome.Published("art-" + claim.id());
        };
  }

  private FakeDestination(
      String name, boolean idempotent, boolean lookup, BreakerSettings breaker, int concurrency) {
    this.config =
        new DestinationConfig(
            name,
            URI.create("http://" + name + ".invalid"),
            profile(idempotent, lookup),
            Duration.ofMillis(100),
            Duration.ofMillis(400),
            concurrency,
            Optional.empty(),
            breaker);
  }

  /**
   * A key never forgotten (a window beyond {@link Capabilities#UNBOUNDED} even less one call)
   * and/or the default lookup.
   */
  private static DestinationProfile profile(boolean idempotent, boolean lookup) {
    DestinationProfile none = DestinationProfile.Preset.NONE.profile();
    return new DestinationProfile(
        none.preset(),
        idempotent ? Optional.of("Idempotency-Key") : Optional.empty(),
        idempotent ? Capabilities.UNBOUNDED.plusDays(1) : Duration.ZERO,
        false,
        Optional.empty(),
        none.conflict(),
        Optional.empty(),
        none.remoteIdField(),
        lookup ? Optional.of(DestinationProfile.DEFAULT_LOOKUP_PATH) : Optional.empty(),
        none.lookupIdField(),
        true,
        0);
  }

  /** Publishes with {@code call}: a call that blocks, counts, or answers per delivery. */
  public FakeDestination publishingWith(Function<ClaimedDelivery, Outcome> call) {
    publish = call;
    return this;
  }

  public FakeDestination answering(Outcome outcome) {
    publish = claim -> outcome;
    return this;
  }

  public FakeDestination lookingUp(LookupResult result) {
    lookUp = claim -> result;
    return this;
  }

  @Override
  public DestinationConfig config() {
    return config;
  }

  @Override
  public Outcome publish(ClaimedDelivery delivery) {
    published.add(delivery);
    return publish.apply(delivery);
  }

  @Override
  public LookupResult lookUp(ClaimedDelivery delivery) {
    lookedUp.add(delivery);
    return lookUp.apply(delivery);
  }

  @Override
  public void close() {
    closed = true;
  }
}
