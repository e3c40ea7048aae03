package io.herald.devstack.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.devstack.HandClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DestinationSimulatorTest {

  private static final String BODY = "{\"externalReference\":\"ref-1\",\"title\":\"t\"}";

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private DestinationSimulator simulator;

  @AfterEach
  void stop() {
    if (simulator != null) {
      simulator.close();
    }
  }

  @Test
  void shouldReturnTheSameArticleWhenAnHonouredIdempotencyKeyRepeats() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());

    HttpResponse<String> first = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> second = post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(201, first.statusCode());
    assertEquals(200, second.statusCode());
    assertEquals(first.body(), second.body());
    assertEquals(1, simulator.articleCount("ref-1"));
    assertEquals(2, simulator.createRequests("key-1"));
  }

  @Test
  void shouldListTheArticlesFromAnIndexAndRefuseAnIndexPastAReset() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    post("key-1", BODY, Duration.ofSeconds(5));
    post("key-2", BODY.replace("ref-1", "ref-2"), Duration.ofSeconds(5));
    post("key-3", BODY.replace("ref-1", "ref-3"), Duration.ofSeconds(5));

    assertEquals(
        List.of("ref-2", "ref-3"),
        simulator.articlesFrom(1).stream().map(Article::externalReference).toList());
    assertEquals(List.of(), simulator.articlesFrom(3));
    simulator.reset();
    assertThrows(IllegalStateException.class, () -> simulator.articlesFrom(1));
  }

  @Test
  void shouldCreateASecondArticleWhenTheIdempotencyKeyIsIgnored() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare());

    post("key-1", BODY, Duration.ofSeconds(5));
    post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(2, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldFindArticlesByExternalReferenceOnlyWhenLookupIsSupported() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    assertEquals(404, lookUp("ref-1").statusCode());
    HttpResponse<String> created = post("key-1", BODY, Duration.ofSeconds(5));

    HttpResponse<String> found = lookUp("ref-1");

    assertEquals(200, found.statusCode());
    assertEquals(created.body(), found.body());
    simulator.setBehaviour(Behaviour.cooperative().withLookup(false));
    assertEquals(501, lookUp("ref-1").statusCode());
  }

  @Test
  void shouldKeepTheArticleWhenItStallsPastTheClientTimeout() {
    simulator = DestinationSimulator.start(Behaviour.bare());
    simulator.failNext(new Fault.StallAfterAccept(Duration.ofSeconds(5)));

    assertThrows(HttpTimeoutException.class, () -> post("key-1", BODY, Duration.ofMillis(300)));

    assertEquals(1, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldCreateNothingWhenItStallsWithoutAccepting() {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.failNext(new Fault.StallWithoutAccepting(Duration.ofSeconds(5)));

    assertThrows(HttpTimeoutException.class, () -> post("key-1", BODY, Duration.ofMillis(300)));

    assertEquals(0, simulator.articleCount("ref-1"));
    assertEquals(1, simulator.createRequests("key-1"));
  }

  @Test
  void shouldCreateNothingWhenItFailsBeforeAccepting() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.failNext(new Fault.RejectBeforeAccept(Duration.ofSeconds(2)));
    simulator.failNext(new Fault.Status(429));

    HttpResponse<String> rejected = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> throttled = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> accepted = post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(503, rejected.statusCode());
    assertEquals("2", rejected.headers().firstValue("Retry-After").orElseThrow());
    assertEquals(429, throttled.statusCode());
    assertEquals(201, accepted.statusCode());
    assertEquals(1, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldRunTheAcceptHookAfterCreatingTheArticle() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    AtomicInteger seenArticles = new AtomicInteger(-1);
    simulator.failNext(new Fault.OnAccept(() -> seenArticles.set(simulator.articleCount("ref-1"))));

    post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(1, seenArticles.get());
  }

  @Test
  void shouldAddTheConfiguredLatency() throws Exception {
    simulator =
        DestinationSimulator.start(Behaviour.cooperative().withLatency(Duration.ofMillis(200)));
    long start = System.nanoTime();

    post("key-1", BODY, Duration.ofSeconds(5));

    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofMillis(200)) >= 0);
  }

  @Test
  void shouldServeSeveralDestinationsUnderPathPrefixesEachWithItsBehaviour() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.setBehaviour("dest-b", Behaviour.bare());

    assertEquals(201, post("/dest-a/articles", "key-a", BODY).statusCode());
    assertEquals(200, post("/dest-a/articles", "key-a", BODY).statusCode());
    assertEquals(201, post("/dest-b/articles", "key-b", BODY).statusCode());
    assertEquals(201, post("/dest-b/articles", "key-b", BODY).statusCode());

    assertEquals(3, simulator.articleCount("ref-1"));
    HttpResponse<String> lookup =
        client.send(
            HttpRequest.newBuilder(
                    simulator.baseUri().resolve("/dest-b/articles?externalReference=ref-1"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(501, lookup.statusCode());
  }

  @Test
  void shouldTakeADestinationsBehaviourWithOrWithoutTheLeadingSlash() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.setBehaviour("/dest-b", Behaviour.bare());

    assertEquals(201, post("/dest-b/articles", "key-b", BODY).statusCode());
    assertEquals(201, post("/dest-b/articles", "key-b", BODY).statusCode());

    assertEquals(2, simulator.articleCount("ref-1"), "dest-b ignored the repeated key");
  }

  @Test
  void shouldRefuseRequestsWithoutTheBearerToken() throws Exception {
    simulator = DestinationSimulator.start("127.0.0.1", 0, Behaviour.cooperative(), "s3cret");

    assertEquals(401, post("key-1", BODY, Duration.ofSeconds(5)).statusCode());
    assertEquals(0, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldRejectABodyWithoutExternalReference() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());

    assertEquals(422, post("key-1", "{\"title\":\"t\"}", Duration.ofSeconds(5)).statusCode());
  }

  @Test
  void shouldCreateASecondArticleWhenAKeyRepeatsAfterTheKeyWindow() throws Exception {
    HandClock clock = new HandClock(Instant.parse("2026-01-01T00:00:00Z"));
    simulator =
        DestinationSimulator.start(
            Behaviour.cooperative().withKeyWindow(Duration.ofMinutes(1)), clock);

    HttpResponse<String> first = post("key-1", BODY, Duration.ofSeconds(5));
    clock.advance(Duration.ofSeconds(59));
    HttpResponse<String> inside = post("key-1", BODY, Duration.ofSeconds(5));
    clock.advance(Duration.ofSeconds(2));
    HttpResponse<String> after = post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(201, first.statusCode());
    assertEquals(200, inside.statusCode());
    assertEquals(201, after.statusCode());
    assertEquals(2, simulator.articleCount("ref-1"));
    // The lookup still finds the first article: the article outlives the key.
    assertEquals(
        first.body(), lookUp("ref-1").body(), "a lookup answers the first article created");
  }

  @Test
  void shouldAnswerARepeatedKeyWithConflictAndTheIdWhenItPlaysConflictExists() throws Exception {
    simulator =
        DestinationSimulator.start(
            Behaviour.cooperative()
                .withRepeat(Behaviour.Repeat.CONFLICT_EXISTS)
                .withReplayMarker("Idempotent-Replayed"));

    HttpResponse<String> first = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> repeat = post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(201, first.statusCode());
    assertEquals(409, repeat.statusCode());
    assertTrue(repeat.body().contains("\"id\":\"art-1\""), repeat.body());
    assertEquals("true", repeat.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertTrue(first.headers().firstValue("Idempotent-Replayed").isEmpty());
  }

  @Test
  void shouldReplayASavedErrorForItsKeyWhenItReplaysErrors() throws Exception {
    simulator =
        DestinationSimulator.start(
            Behaviour.cooperative().withErrorReplay(true).withReplayMarker("Idempotent-Replayed"));
    simulator.failNext(new Fault.Status(500));

    HttpResponse<String> failed = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> replayed = post("key-1", BODY, Duration.ofSeconds(5));
    HttpResponse<String> otherKey = post("key-2", BODY, Duration.ofSeconds(5));

    assertEquals(500, failed.statusCode());
    assertEquals(500, replayed.statusCode());
    assertEquals("true", replayed.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertEquals(201, otherKey.statusCode());
  }

  @Test
  void shouldReadTheKeyFromTheConfiguredHeader() throws Exception {
    simulator =
        DestinationSimulator.start(Behaviour.cooperative().withIdempotencyHeader("X-Request-Key"));

    post("key-1", BODY, Duration.ofSeconds(5));
    post("key-1", BODY, Duration.ofSeconds(5));

    // The Idempotency-Key header is not this destination's key header: both create an article.
    assertEquals(2, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldAnswerRateLimitedWithRetryAfterCreatingNothing() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    simulator.failNext("", new Fault.RateLimited(Duration.ofSeconds(3)), 1);

    HttpResponse<String> limited = post("key-1", BODY, Duration.ofSeconds(5));

    assertEquals(429, limited.statusCode());
    assertEquals("3", limited.headers().firstValue("Retry-After").orElseThrow());
    assertEquals(0, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldRefuseACreateWithALowerFencingTokenForTheSameKeyWhenItFences() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare().withFencing(true));

    HttpResponse<String> newer = postFenced(BODY, "7");
    HttpResponse<String> stale = postFenced(BODY, "6");

    assertEquals(201, newer.statusCode());
    assertEquals(409, stale.statusCode());
    assertTrue(stale.body().contains("\"error\":\"stale_fencing_token\""), stale.body());
    // Keyed by the body's reference: the requests carry no idempotency key header.
    assertEquals(1, simulator.articleCount("ref-1"));
    assertEquals(1, simulator.staleTokenRefusals("ref-1"));
    assertEquals(7L, simulator.highestFencingToken("ref-1").orElseThrow());
  }

  @Test
  void shouldServeAnEqualOrHigherTokenAndRequestsWithoutOneWhenItFences() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare().withFencing(true));

    assertEquals(201, postFenced(BODY, "3").statusCode());
    assertEquals(201, postFenced(BODY, "3").statusCode());
    assertEquals(201, postFenced(BODY, "4").statusCode());
    assertEquals(201, post("key-1", BODY, Duration.ofSeconds(5)).statusCode());

    // A bare destination ignores keys: each served create is an article; none was refused.
    assertEquals(4, simulator.articleCount("ref-1"));
    assertEquals(0, simulator.staleTokenRefusals("ref-1"));
  }

  @Test
  void shouldKeepTheHighestTokenPerKeySoAnotherKeyIsNotFenced() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare().withFencing(true));

    postFenced(BODY, "9");
    HttpResponse<String> other =
        postFenced("{\"externalReference\":\"ref-2\",\"title\":\"t\"}", "1");

    assertEquals(201, other.statusCode());
    assertEquals(0, simulator.staleTokenRefusals("ref-2"));
  }

  @Test
  void shouldRefuseACreateOlderThanALookupsTokenWhenItFences() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative().withFencing(true));
    HttpRequest lookup =
        HttpRequest.newBuilder(simulator.baseUri().resolve("/articles?externalReference=ref-1"))
            .header(DestinationSimulator.FENCING_TOKEN_HEADER, "5")
            .GET()
            .build();
    assertEquals(404, client.send(lookup, HttpResponse.BodyHandlers.ofString()).statusCode());

    // The lookup found nothing under token 5: a create still on its way under token 4 is late.
    assertEquals(409, postFenced(BODY, "4").statusCode());
    assertEquals(0, simulator.articleCount("ref-1"));
  }

  @Test
  void shouldCreateTwiceWhateverTheTokensWhenItDoesNotFence() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare());

    postFenced(BODY, "7");
    HttpResponse<String> older = postFenced(BODY, "6");

    assertEquals(201, older.statusCode());
    assertEquals(2, simulator.articleCount("ref-1"));
    assertEquals(0, simulator.staleTokenRefusals("ref-1"));
  }

  @Test
  void shouldAnswerBadRequestForAnUnreadableFencingToken() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.bare().withFencing(true));

    assertEquals(400, postFenced(BODY, "seven").statusCode());
    assertEquals(0, simulator.articleCount("ref-1"));
  }

  /** A create without an idempotency key header, with {@code token} in the fencing header. */
  @Test
  void shouldRecordTheHeadersOfEveryRequestItReceived() throws Exception {
    simulator = DestinationSimulator.start(Behaviour.cooperative());

    post("key-1", BODY, Duration.ofSeconds(5));
    lookUp("ref-1");

    assertEquals(2, simulator.receivedRequests().size());
    ReceivedRequest create = simulator.receivedRequests().getFirst();
    assertEquals("POST", create.method());
    assertEquals("/articles", create.path());
    assertEquals("key-1", create.header("idempotency-key").orElseThrow());
    assertEquals("key-1", create.header("IDEMPOTENCY-KEY").orElseThrow());
    assertEquals("GET", simulator.receivedRequests().get(1).method());
    simulator.reset();
    assertTrue(simulator.receivedRequests().isEmpty());
  }

  private HttpResponse<String> postFenced(String body, String token)
      throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(simulator.baseUri().resolve("/articles"))
            .timeout(Duration.ofSeconds(5))
            .header(DestinationSimulator.FENCING_TOKEN_HEADER, token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String key, String body, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(simulator.baseUri().resolve("/articles"))
            .timeout(timeout)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String key, String body)
      throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(simulator.baseUri().resolve(path))
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> lookUp(String reference) throws IOException, InterruptedException {
    URI uri = simulator.baseUri().resolve("/articles?externalReference=" + reference);
    return client.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
