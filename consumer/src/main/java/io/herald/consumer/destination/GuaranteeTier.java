package io.herald.consumer.destination;

import io.herald.config.Durations;

/**
 * What Herald can promise about one destination, computed once from its {@link DestinationProfile}
 * ({@link #of}); docs/design.md ("Destination profiles and guarantee tiers") says what each means
 * for a user. Shown at start-up, on {@code /health}, as the {@code tier} label of {@code
 * herald_consumer_destination_info}.
 */
public enum GuaranteeTier {
  /** The destination honours a key: an unknown outcome is resent with it inside its window. */
  EXACTLY_ONCE_IN_EFFECT("exactly-once in effect"),
  /** No key, but a lookup by external reference: resent only after a lookup proves "not found". */
  EFFECT_ONCE_BY_LOOKUP("effect-once by lookup"),
  /** Neither: an unknown outcome is never resent automatically; an operator decides. */
  AT_MOST_ONCE_OPERATOR("at-most-once, operator decides");

  private final String text;

  GuaranteeTier(String text) {
    this.text = text;
  }

  /** The tier of a destination with {@code profile}: the one place it is decided. */
  public static GuaranteeTier of(DestinationProfile profile) {
    if (profile.idempotencyHeader().isPresent()) {
      return EXACTLY_ONCE_IN_EFFECT;
    }
    return profile.lookupPath().isPresent() ? EFFECT_ONCE_BY_LOOKUP : AT_MOST_ONCE_OPERATOR;
  }

  /** The metric label value: {@code exactly-once-in-effect}, ... */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /**
   * The tier as operators read it: {@code exactly-once in effect (key Idempotency-Key, window
   * 24h)}, {@code effect-once by lookup}, {@code at-most-once, operator decides}.
   */
  public String describe(DestinationProfile profile) {
    if (this != EXACTLY_ONCE_IN_EFFECT) {
      return text;
    }
    return text
        + " (key "
        + profile.idempotencyHeader().orElseThrow()
        + ", window "
        + Durations.format(profile.dedupWindow())
        + (profile.lookupPath().isPresent() ? ", then lookup" : ", then operator")
        + ")";
  }
}
