package io.herald.consumer.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** What a destination's profile changes in the classification of its answers. */
class ProfileClassificationTest {

  private static final DestinationProfile STRIPE = DestinationProfile.Preset.STRIPE_LIKE.profile();
  private static final DestinationProfile CHECKOUT =
      DestinationProfile.Preset.CHECKOUT_LIKE.profile();

  private static Function<String, Optional<String>> headers(String... nameValues) {
    Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < nameValues.length; i += 2) {
      map.put(nameValues[i], nameValues[i + 1]);
    }
    return name -> Optional.ofNullable(map.get(name));
  }

  @Test
  void shouldPublishWithTheBodysIdWhenA409MeansTheKeysArticleExists() {
    Outcome outcome = OutcomeClassifier.classify(CHECKOUT, 409, "{\"id\":\"art-3\"}", headers());

    assertEquals(new Outcome.Published("art-3", 409), outcome);
  }

  @Test
  void shouldReadTheConflictsRemoteIdFromTheConfiguredHeader() {
    DestinationProfile byHeader =
        new DestinationProfile(
            CHECKOUT.preset(),
            CHECKOUT.idempotencyHeader(),
            CHECKOUT.dedupWindow(),
            false,
            Optional.empty(),
            DestinationProfile.Conflict.EXISTS,
            Optional.of("X-Existing-Id"),
            "/id",
            Optional.empty(),
            "/id",
            true,
            0);

    assertEquals(
        new Outcome.Published("art-9", 409),
        OutcomeClassifier.classify(byHeader, 409, "{}", headers("x-existing-id", "art-9")));
    assertInstanceOf(
        Outcome.Uncertain.class, OutcomeClassifier.classify(byHeader, 409, "{}", headers()));
  }

  @Test
  void shouldRetryLaterWhenA409MeansTheKeyIsInFlight() {
    assertInstanceOf(
        Outcome.Retry.class,
        OutcomeClassifier.classify(STRIPE, 409, "{\"id\":\"art-3\"}", headers()));
  }

  @Test
  void shouldRecogniseAReplayedErrorByItsMarkerOnlyWhereErrorsAreReplayed() {
    Outcome replayed =
        OutcomeClassifier.classify(STRIPE, 500, "{}", headers("Idempotent-Replayed", "true"));
    Outcome fresh = OutcomeClassifier.classify(STRIPE, 500, "{}", headers());
    Outcome notReplaying =
        OutcomeClassifier.classify(CHECKOUT, 500, "{}", headers("Idempotent-Replayed", "true"));
    Outcome replayedRejection =
        OutcomeClassifier.classify(STRIPE, 422, "{}", headers("Idempotent-Replayed", "true"));

    assertInstanceOf(Outcome.ReplayedError.class, replayed);
    assertInstanceOf(Outcome.Uncertain.class, fresh);
    assertInstanceOf(Outcome.Uncertain.class, notReplaying);
    assertInstanceOf(Outcome.Permanent.class, replayedRejection);
  }

  @Test
  void shouldIgnoreRetryAfterWhenTheProfileDoesNotHonourIt() {
    DestinationProfile p = DestinationProfile.Preset.NONE.profile();
    DestinationProfile ignoring =
        new DestinationProfile(
            p.preset(),
            p.idempotencyHeader(),
            p.dedupWindow(),
            false,
            Optional.empty(),
            p.conflict(),
            Optional.empty(),
            "/id",
            Optional.empty(),
            "/id",
            false,
            0);

    Outcome honoured = OutcomeClassifier.classify(p, 429, "", headers("Retry-After", "7"));
    Outcome ignored = OutcomeClassifier.classify(ignoring, 429, "", headers("Retry-After", "7"));

    assertEquals(Duration.ofSeconds(7), ((Outcome.Retry) honoured).retryAfter());
    assertNull(((Outcome.Retry) ignored).retryAfter());
  }

  @Test
  void shouldFindTheRemoteIdAtTheConfiguredJsonPointers() {
    DestinationProfile p = DestinationProfile.Preset.LOOKUP_ONLY.profile();
    DestinationProfile nested =
        new DestinationProfile(
            p.preset(),
            p.idempotencyHeader(),
            p.dedupWindow(),
            false,
            Optional.empty(),
            p.conflict(),
            Optional.empty(),
            "/data/id",
            p.lookupPath(),
            "/items/0/id",
            true,
            0);

    assertEquals(
        new Outcome.Published("art-1", 201),
        OutcomeClassifier.classify(nested, 201, "{\"data\":{\"id\":\"art-1\"}}", headers()));
    assertInstanceOf(
        Outcome.Uncertain.class,
        OutcomeClassifier.classify(nested, 201, "{\"id\":\"art-1\"}", headers()));
    assertEquals(
        new LookupResult.Found("art-2", 200),
        OutcomeClassifier.classifyLookup(nested, 200, "{\"items\":[{\"id\":\"art-2\"}]}"));
  }

  @Test
  void shouldComputeTheTierFromTheProfileAlone() {
    assertEquals(GuaranteeTier.EXACTLY_ONCE_IN_EFFECT, STRIPE.tier());
    assertEquals(
        "exactly-once in effect (key Idempotency-Key, window 1d, then operator)",
        STRIPE.guarantee());
    assertEquals(
        GuaranteeTier.EFFECT_ONCE_BY_LOOKUP,
        DestinationProfile.Preset.LOOKUP_ONLY.profile().tier());
    assertEquals(
        "effect-once by lookup", DestinationProfile.Preset.LOOKUP_ONLY.profile().guarantee());
    assertEquals(
        GuaranteeTier.AT_MOST_ONCE_OPERATOR, DestinationProfile.Preset.NONE.profile().tier());
    assertEquals(
        "at-most-once, operator decides", DestinationProfile.Preset.NONE.profile().guarantee());
    assertEquals("exactly-once-in-effect", GuaranteeTier.EXACTLY_ONCE_IN_EFFECT.label());
  }
}
