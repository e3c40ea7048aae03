package io.herald.consumer.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AttemptTest {

  @Test
  void shouldTrimAnErrorLongerThanTheTableKeepsAndMarkTheCut() {
    Attempt attempt = attempt("x".repeat(5_000));

    assertEquals(Attempt.MAX_ERROR_LENGTH, attempt.error().length());
    assertTrue(attempt.error().endsWith("..."));
  }

  @Test
  void shouldKeepAShortErrorAndNoErrorAsTheyAre() {
    assertEquals("HTTP 503: busy", attempt("HTTP 503: busy").error());
    assertNull(attempt(null).error());
  }

  @Test
  void shouldNotCutASurrogatePairInHalfWhenTrimming() {
    String error = "e".repeat(Attempt.MAX_ERROR_LENGTH - 4) + "\uD83D\uDE00" + "tail";

    String trimmed = attempt(error).error();

    assertTrue(trimmed.length() <= Attempt.MAX_ERROR_LENGTH);
    assertTrue(trimmed.endsWith("e..."), trimmed.substring(trimmed.length() - 8));
  }

  @Test
  void shouldRefuseANegativeDuration() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Attempt(
                Attempt.Kind.PUBLISH, "owner", Duration.ofMillis(-1), "published", 201, null));
  }

  @Test
  void shouldRefuseARequestHashThatIsNotALowerCaseSha256Hex() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Attempt(
                Attempt.Kind.PUBLISH, "owner", Duration.ZERO, "published", 201, null, "ABC123"));
    String hash = "0123456789abcdef".repeat(4);
    assertEquals(
        hash,
        new Attempt(Attempt.Kind.PUBLISH, "owner", Duration.ZERO, "published", 201, null, hash)
            .requestHash());
  }

  private static Attempt attempt(String error) {
    return new Attempt(Attempt.Kind.PUBLISH, "owner", Duration.ofMillis(5), "retry", 503, error);
  }
}
