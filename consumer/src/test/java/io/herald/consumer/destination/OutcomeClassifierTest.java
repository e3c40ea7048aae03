package io.herald.consumer.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutcomeClassifierTest {

  @Test
  void shouldPublishWhenA2xxAnswerCarriesTheRemoteId() {
    Outcome outcome = OutcomeClassifier.classify(201, "{\"id\":\"art-7\"}", null);

    assertEquals(new Outcome.Published("art-7", 201), outcome);
  }

  @Test
  void shouldBeUncertainWhenA2xxAnswerLacksTheRemoteId() {
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(200, "{}", null));
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(200, "not json", null));
  }

  @Test
  void shouldRetryWhenTheDestinationSaysItDidNotProcessTheRequest() {
    Outcome throttled = OutcomeClassifier.classify(429, "{}", "7");

    assertEquals(Duration.ofSeconds(7), ((Outcome.Retry) throttled).retryAfter());
    assertInstanceOf(Outcome.Retry.class, OutcomeClassifier.classify(503, "", null));
    assertInstanceOf(Outcome.Retry.class, OutcomeClassifier.classify(409, "", null));
    assertInstanceOf(Outcome.Retry.class, OutcomeClassifier.classify(408, "", null));
  }

  @Test
  void shouldFailPermanentlyOnAValidationRejection() {
    assertInstanceOf(Outcome.Permanent.class, OutcomeClassifier.classify(422, "{}", null));
    assertInstanceOf(Outcome.Permanent.class, OutcomeClassifier.classify(400, "{}", null));
    assertInstanceOf(Outcome.Permanent.class, OutcomeClassifier.classify(401, "{}", null));
  }

  @Test
  void shouldBeUncertainOnServerErrorsThatMayHaveTakenEffect() {
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(500, "", null));
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(502, "", null));
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(504, "", null));
    assertInstanceOf(Outcome.Uncertain.class, OutcomeClassifier.classify(303, "", null));
  }

  @Test
  void shouldRetryWhenNothingWasSent() {
    assertInstanceOf(
        Outcome.Retry.class,
        OutcomeClassifier.classify(new ConnectException("Connection refused")));
    assertInstanceOf(
        Outcome.Retry.class,
        OutcomeClassifier.classify(new HttpConnectTimeoutException("connect timed out")));
    assertInstanceOf(
        Outcome.Retry.class,
        OutcomeClassifier.classify(new IOException("wrapped", new ConnectException("refused"))));
  }

  @Test
  void shouldBeUncertainWhenTheAnswerIsLostAfterSending() {
    assertInstanceOf(
        Outcome.Uncertain.class,
        OutcomeClassifier.classify(new HttpTimeoutException("request timed out")));
    assertInstanceOf(
        Outcome.Uncertain.class, OutcomeClassifier.classify(new IOException("Connection reset")));
    assertInstanceOf(
        Outcome.Uncertain.class, OutcomeClassifier.classify(new InterruptedException()));
  }

  @Test
  void shouldOnlyTrustAnExplicitNotFoundFromALookup() {
    assertEquals(
        new LookupResult.Found("art-1", 200),
        OutcomeClassifier.classifyLookup(200, "{\"id\":\"art-1\"}"));
    assertInstanceOf(LookupResult.NotFound.class, OutcomeClassifier.classifyLookup(404, ""));
    assertInstanceOf(LookupResult.Unavailable.class, OutcomeClassifier.classifyLookup(501, ""));
    assertInstanceOf(LookupResult.Unavailable.class, OutcomeClassifier.classifyLookup(500, ""));
    assertInstanceOf(
        LookupResult.Unavailable.class,
        OutcomeClassifier.classifyLookup(new HttpTimeoutException("timeout")));
  }
}
