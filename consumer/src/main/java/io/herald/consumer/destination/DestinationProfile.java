package io.herald.consumer.destination;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How one destination API deduplicates, answers and limits: the profile keys of {@code
 * consumer.destinations.<name>.*} ({@code profile} names a {@link Preset}, the other keys refine
 * it), resolved and validated by {@code ConsumerConfig}. Immutable. The {@link GuaranteeTier}
 * follows from it.
 *
 * @param preset {@code profile}: the convention the other keys refine
 * @param idempotencyHeader {@code idempotency-header}: the request header carrying the idempotency
 *     key; empty: the destination has no key
 * @param dedupWindow {@code dedup-window}: how long the destination remembers a key; zero without a
 *     key
 * @param errorsReplayed {@code errors-replayed}: a repeated key gets the saved error of its first
 *     request (recognised by {@code replayMarkerHeader})
 * @param replayMarkerHeader {@code replay-marker-header}: the response header marking a replayed
 *     answer
 * @param conflict {@code conflict}: what a {@code 409} means
 * @param conflictIdHeader {@code conflict-id-header}: the response header of a {@code 409 exists}
 *     holding the remote id; empty: the body's {@code remoteIdField}
 * @param remoteIdField {@code remote-id-field}: JSON pointer to the remote id in a publish answer
 *     ({@code /id})
 * @param lookupPath {@code lookup-path}: the lookup's path and query under the base URL, {@code
 *     {ref}} standing for the URL-encoded external reference; empty: no lookup
 * @param lookupIdField {@code lookup-id-field}: JSON pointer to the remote id in a lookup answer
 * @param honourRetryAfter {@code honour-retry-after}: a {@code 429} or {@code 503} with {@code
 *     Retry-After} is not tried again before then (capped by {@code consumer.dispatch.backoff-max})
 * @param rateLimit {@code rate-limit}: requests per second to this destination per consumer
 *     instance (publishes and lookups); 0: unlimited
 */
public record DestinationProfile(
    Preset preset,
    Optional<String> idempotencyHeader,
    Duration dedupWindow,
    boolean errorsReplayed,
    Optional<String> replayMarkerHeader,
    Conflict conflict,
    Optional<String> conflictIdHeader,
    String remoteIdField,
    Optional<String> lookupPath,
    String lookupIdField,
    boolean honourRetryAfter,
    int rateLimit) {

  /** The placeholder of {@link #lookupPath()} for the external reference. */
  public static final String REFERENCE = "{ref}";

  /** The lookup path of the simulator and of most APIs that have one. */
  public static final String DEFAULT_LOOKUP_PATH = "/articles?externalReference=" + REFERENCE;

  /** What a {@code 409 Conflict} answer means at a destination. */
  public enum Conflict {
    /** A request with the same key is still being processed: not processed now, retry later. */
    IN_FLIGHT,
    /** An article with this key exists: PUBLISHED, with the remote id the answer carries. */
    EXISTS
  }

  /**
   * Shipped conventions: the defaults of every other profile key. The names say what they resemble,
   * not that a vendor's API is exactly so: check the API's documentation and refine.
   */
  public enum Preset {
    /** No key, no lookup: tier at-most-once, operator decides. */
    NONE(null, Duration.ZERO, false, null, Conflict.IN_FLIGHT, null),
    /** No key; {@code GET /articles?externalReference={ref}} answers the article or 404. */
    LOOKUP_ONLY(null, Duration.ZERO, false, null, Conflict.IN_FLIGHT, DEFAULT_LOOKUP_PATH),
    /**
     * {@code Idempotency-Key} remembered 24h; the first answer, errors included, is replayed with
     * {@code Idempotent-Replayed: true}; 409: the same key is in flight.
     */
    STRIPE_LIKE(
        "Idempotency-Key",
        Duration.ofHours(24),
        true,
        "Idempotent-Replayed",
        Conflict.IN_FLIGHT,
        null),
    /** {@code Idempotency-Key} remembered 24h; a repeat answers 409 with the existing id. */
    CHECKOUT_LIKE("Idempotency-Key", Duration.ofHours(24), false, null, Conflict.EXISTS, null);

    private final String idempotencyHeader;
    private final Duration dedupWindow;
    private final boolean errorsReplayed;
    private final String replayMarkerHeader;
    private final Conflict conflict;
    private final String lookupPath;

    Preset(
        String idempotencyHeader,
        Duration dedupWindow,
        boolean errorsReplayed,
        String replayMarkerHeader,
        Conflict conflict,
        String lookupPath) {
      this.idempotencyHeader = idempotencyHeader;
      this.dedupWindow = dedupWindow;
      this.errorsReplayed = errorsReplayed;
      this.replayMarkerHeader = replayMarkerHeader;
      this.conflict = conflict;
      this.lookupPath = lookupPath;
    }

    public Optional<String> idempotencyHeader() {
      return Optional.ofNullable(idempotencyHeader);
    }

    public Duration dedupWindow() {
      return dedupWindow;
    }

    public boolean errorsReplayed() {
      return errorsReplayed;
    }

    public Optional<String> replayMarkerHeader() {
      return Optional.ofNullable(replayMarkerHeader);
    }

    public Conflict conflict() {
      return conflict;
    }

    public Optional<String> lookupPath() {
      return Optional.ofNullable(lookupPath);
    }

    /** The preset unrefined: remote ids at {@code /id}, Retry-After honoured, no rate limit. */
    public DestinationProfile profile() {
      return new DestinationProfile(
          this,
          idempotencyHeader(),
          dedupWindow,
          errorsReplayed,
          replayMarkerHeader(),
          conflict,
          Optional.empty(),
          "/id",
          lookupPath(),
          "/id",
          true,
          0);
    }
  }

  public DestinationProfile {
    Objects.requireNonNull(preset, "preset");
    Objects.requireNonNull(idempotencyHeader, "idempotencyHeader");
    Objects.requireNonNull(dedupWindow, "dedupWindow");
    Objects.requireNonNull(replayMarkerHeader, "replayMarkerHeader");
    Objects.requireNonNull(conflict, "conflict");
    Objects.requireNonNull(conflictIdHeader, "conflictIdHeader");
    Objects.requireNonNull(remoteIdField, "remoteIdField");
    Objects.requireNonNull(lookupPath, "lookupPath");
    Objects.requireNonNull(lookupIdField, "lookupIdField");
  }

  /** The guarantee this profile allows. */
  public GuaranteeTier tier() {
    return GuaranteeTier.of(this);
  }

  /** The tier as operators read it, with the key and window when there is one. */
  public String guarantee() {
    return tier().describe(this);
  }
}
