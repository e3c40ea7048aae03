package io.herald.cli.destinations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.cli.deliveries.DeliveriesCommand;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.consumer.HeraldConsumer;
import io.herald.consumer.TestKit;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code herald destinations status | pause | resume} as separate OS processes against a running
 * consumer (the consumer's test kit, operator token {@code op-token}): a pause holds a delivery
 * PENDING with nothing sent, status shows who paused and why, resume releases it; an unknown
 * destination exits 1, bad usage 2, no consumer 3.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DestinationsCliIT {

  private static final String DESTINATION = "cli-held";
  private static final Map<String, String> TOKEN = Map.of(DeliveriesCommand.TOKEN_ENV, "op-token");

  private TestKit kit;
  private TestKit.Destination destination;
  private DeliveryViews views;
  private String url;
  private PublicationRequested held;

  @BeforeAll
  void startConsumer(StackContext stack) {
    kit = new TestKit(stack, "cli-destinations", 1);
    destination = kit.destination(DESTINATION, Behaviour.cooperative());
    HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("cli"), destination));
    url = consumer.opsUri().toString();
    views = new DeliveryViews(stack.dataSource());
  }

  @AfterAll
  void stopConsumer() {
    if (kit != null) {
      kit.close();
    }
  }

  @Test
  @Order(1)
  void shouldShowEveryDestinationClosedAndNotPausedAtFirst() throws Exception {
    Result result = HeraldProcess.run(TOKEN, "destinations", "status", "--consumer-url", url);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("DESTINATION ")
        .contains("PAUSED", "BREAKER", "WAITING")
        .containsPattern("(?m)^cli-held +exactly-once-in-effect +no +.*CLOSED +0$")
        .contains("1 destination; breakers as seen by consumer ");
  }

  @Test
  @Order(2)
  void shouldHoldTheDestinationsDeliveriesWhilePaused() throws Exception {
    Result paused =
        HeraldProcess.run(
            TOKEN,
            "destinations",
            "pause",
            DESTINATION,
            "--reason",
            "vendor maintenance",
            "--actor",
            "eve",
            "--consumer-url",
            url);
    assertThat(paused.exitCode()).as(paused.toString()).isZero();
    assertThat(paused.out()).startsWith("destination cli-held paused by eve");

    held = TestKit.request(new PublicationKey("t1", "a-cli-held", "r-1", DESTINATION), "Held");
    kit.sendAsync(held);
    kit.flush();
    await().atMost(Duration.ofSeconds(60)).until(() -> views.find(held.key()).isPresent());
    Result status =
        HeraldProcess.run(TOKEN, "destinations", "status", "--json", "--consumer-url", url);

    assertThat(status.exitCode()).as(status.toString()).isZero();
    JsonNode row = Json.mapper().readTree(status.out()).get(0);
    assertThat(row.path("name").asText()).isEqualTo(DESTINATION);
    assertThat(row.path("paused").asBoolean()).isTrue();
    assertThat(row.path("pause").path("actor").asText()).isEqualTo("eve");
    assertThat(row.path("pause").path("reason").asText()).isEqualTo("vendor maintenance");
    assertThat(row.path("waiting").asLong()).isEqualTo(1);
    assertThat(views.find(held.key()).orElseThrow().state()).isEqualTo(DeliveryState.PENDING);
    assertThat(destination.simulator().createRequests(held.idempotencyKey())).isZero();
  }

  @Test
  @Order(3)
  void shouldExitOneForADestinationTheConsumerDoesNotKnow() throws Exception {
    Result result =
        HeraldProcess.run(
            TOKEN,
            "destinations",
            "pause",
            "nowhere",
            "--reason",
            "typo",
            "--actor",
            "eve",
            "--consumer-url",
            url);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("404").contains("nowhere");
  }

  @Test
  @Order(4)
  void shouldExitTwoWithoutAReasonAndZeroForHelp() throws Exception {
    Result noReason =
        HeraldProcess.run(TOKEN, "destinations", "resume", DESTINATION, "--consumer-url", url);
    Result help = HeraldProcess.run("destinations", "pause", "--help");

    assertThat(noReason.exitCode()).as(noReason.toString()).isEqualTo(2);
    assertThat(noReason.err()).contains("--reason");
    assertThat(help.exitCode()).as(help.toString()).isZero();
    assertThat(help.out()).contains("--reason", "--actor", "--json", "--consumer-url");
  }

  @Test
  @Order(5)
  void shouldExitThreeWhenNoConsumerAnswers() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Result result =
        HeraldProcess.run(
            TOKEN, "destinations", "status", "--consumer-url", "http://127.0.0.1:" + port);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
  }

  @Test
  @Order(6)
  void shouldReleaseTheWaitingDeliveryOnResume() throws Exception {
    Result resumed =
        HeraldProcess.run(
            TOKEN,
            "destinations",
            "resume",
            DESTINATION,
            "--reason",
            "vendor is back",
            "--actor",
            "eve",
            "--consumer-url",
            url);

    assertThat(resumed.exitCode()).as(resumed.toString()).isZero();
    assertThat(resumed.out()).startsWith("destination cli-held resumed by eve");
    DeliveryView published =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> views.find(held.key()).orElseThrow(),
                v -> v.state() == DeliveryState.PUBLISHED);
    assertThat(destination.simulator().articleCount(held.idempotencyKey())).isEqualTo(1);
    assertThat(published.remoteId()).isNotBlank();
  }
}
