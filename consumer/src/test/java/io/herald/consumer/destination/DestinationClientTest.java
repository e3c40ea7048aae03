package io.herald.consumer.destination;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.common.event.PublicationKey;
import io.herald.consumer.delivery.ClaimedDelivery;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.DestinationSimulator;
import io.herald.devstack.simulator.Fault;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The destination client against a real HTTP server that misbehaves as APIs do (issue 15's F9):
 * each answer ends in the outcome the classifier's table names, within the call's bounds.
 */
class DestinationClientTest {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  private DestinationSimulator simulator;
  private ExecutorService executor;
  private DestinationClient client;

  @BeforeEach
  void start() {
    simulator = DestinationSimulator.start(Behaviour.cooperative());
    executor = Executors.newVirtualThreadPerTaskExecutor();
    client =
        new DestinationClient(
            new DestinationConfig(
                "dest-a",
                URI.create(simulator.baseUri() + "/dest-a"),
                keyAndLookup(),
                Duration.ofSeconds(1),
                READ_TIMEOUT,
                4,
                Optional.empty()),
            executor);
  }

  @AfterEach
  void stop() {
    client.close();
    executor.shutdownNow();
    simulator.close();
  }

  @Test
  void shouldPublishWhenTheDestinationAnswersNormally() {
    Outcome outcome = client.publish(delivery("k-normal"));

    assertThat(outcome).isInstanceOf(Outcome.Published.class);
  }

  @Test
  void shouldBeUncertainWithoutReadingItAllWhenTheAnswerIsHuge() {
    simulator.failNext("dest-a", new Fault.HugeAnswer(512L << 20), 1);

    Outcome outcome = client.publish(delivery("k-huge"));

    assertThat(outcome).isInstanceOf(Outcome.Uncertain.class);
    assertThat(((Outcome.Uncertain) outcome).reason()).contains("larger than");
    assertThat(simulator.articleCount("k-huge")).isEqualTo(1);
  }

  @Test
  void shouldBeUncertainWithinTheCallsBoundWhenTheAnswerDrips() {
    simulator.failNext("dest-a", new Fault.SlowDrip(Duration.ofMillis(400)), 1);
    long start = System.nanoTime();

    Outcome outcome = client.publish(delivery("k-drip"));

    // The drip of a ~60-byte answer lasts ~24 s; the call gives up at connect + read timeout.
    assertThat(outcome).isInstanceOf(Outcome.Uncertain.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    assertThat(simulator.articleCount("k-drip")).isEqualTo(1);
  }

  @Test
  void shouldBeUncertainWhenASuccessAnswerIsMalformed() {
    simulator.failNext("dest-a", new Fault.MalformedAnswer(), 1);

    Outcome outcome = client.publish(delivery("k-malformed"));

    assertThat(outcome).isInstanceOf(Outcome.Uncertain.class);
    assertThat(simulator.articleCount("k-malformed")).isEqualTo(1);
  }

  @Test
  void shouldNotFollowARedirectAndBeUncertain() {
    simulator.failNext("dest-a", new Fault.Redirect(307, "/dest-b/articles"), 1);

    Outcome outcome = client.publish(delivery("k-redirect"));

    assertThat(outcome).isInstanceOf(Outcome.Uncertain.class);
    assertThat(((Outcome.Uncertain) outcome).httpStatus()).isEqualTo(307);
    assertThat(simulator.createRequests("k-redirect")).isEqualTo(1);
    assertThat(simulator.articleCount("k-redirect")).isZero();
  }

  @Test
  void shouldRetryAfterTheDestinationsDelayWhenRateLimited() {
    simulator.failNext("dest-a", new Fault.RateLimited(Duration.ofSeconds(9)), 1);

    Outcome outcome = client.publish(delivery("k-429"));

    assertThat(outcome).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) outcome).retryAfter()).isEqualTo(Duration.ofSeconds(9));
    assertThat(simulator.articleCount("k-429")).isZero();
  }

  @Test
  void shouldBeUncertainWhenTheDestinationAcceptsThenStalls() {
    simulator.failNext("dest-a", new Fault.StallAfterAccept(Duration.ofSeconds(10)), 1);

    Outcome outcome = client.publish(delivery("k-stall"));

    assertThat(outcome).isInstanceOf(Outcome.Uncertain.class);
    assertThat(simulator.articleCount("k-stall")).isEqualTo(1);
  }

  @Test
  void shouldFindTheArticleByLookupAfterAnUnreadableAnswer() {
    simulator.failNext("dest-a", new Fault.HugeAnswer(8L << 20), 1);
    client.publish(delivery("k-lookup"));

    LookupResult found = client.lookUp(delivery("k-lookup"));

    assertThat(found).isInstanceOf(LookupResult.Found.class);
  }

  @Test
  void shouldSendTheClaimTokenSoAFencingDestinationRefusesALowerOne() {
    simulator.setBehaviour(Behaviour.cooperative().withIdempotency(false).withFencing(true));

    Outcome newer = client.publish(delivery("k-fence", 8));
    Outcome stale = client.publish(delivery("k-fence", 7));

    assertThat(newer).isInstanceOf(Outcome.Published.class);
    // 409 at a destination whose conflict means "in flight": a retry, never a publish.
    assertThat(stale).isInstanceOf(Outcome.Retry.class);
    assertThat(stale.httpStatus()).isEqualTo(409);
    assertThat(simulator.staleTokenRefusals("k-fence")).isEqualTo(1);
    assertThat(simulator.articleCount("k-fence")).isEqualTo(1);
  }

  @Test
  void shouldRaiseTheFenceWithALookupsToken() {
    simulator.setBehaviour(Behaviour.cooperative().withFencing(true));

    client.lookUp(delivery("k-look", 4));

    assertThat(simulator.highestFencingToken("k-look")).contains(4L);
  }

  @Test
  void shouldHashExactlyTheBodyItSends() {
    ClaimedDelivery delivery = delivery("k-hash");

    client.publish(delivery);

    String sent = simulator.findByExternalReference("k-hash").orElseThrow().body();
    assertThat(client.requestHash(delivery))
        .isEqualTo(DestinationClient.sha256Hex(sent))
        .matches("[0-9a-f]{64}");
  }

  @Test
  void shouldHashTheKnownSha256OfAText() {
    assertThat(DestinationClient.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  /** The simulator's cooperative destination: Idempotency-Key for 24 h, and a lookup. */
  private static DestinationProfile keyAndLookup() {
    DestinationProfile.Preset preset = DestinationProfile.Preset.STRIPE_LIKE;
    return new DestinationProfile(
        preset,
        preset.idempotencyHeader(),
        preset.dedupWindow(),
        false,
        Optional.empty(),
        preset.conflict(),
        Optional.empty(),
        "/id",
        Optional.of(DestinationProfile.DEFAULT_LOOKUP_PATH),
        "/id",
        true,
        0);
  }

  private static ClaimedDelivery delivery(String key) {
    return delivery(key, 1);
  }

  private static ClaimedDelivery delivery(String key, long claimToken) {
    return new ClaimedDelivery(
        UUID.randomUUID(),
        UUID.randomUUID(),
        new PublicationKey("t1", "a-" + key, "r-1", "dest-a"),
        key,
        "{\"title\":\"T\"}",
        claimToken,
        1,
        null,
        null,
        null,
        DeliveryState.DISPATCHING);
  }
}
