package io.herald.cli.deliveries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.Json;
import io.herald.consumer.HeraldConsumer;
import io.herald.consumer.TestKit;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald deliveries} as separate OS processes against a running consumer (the consumer's
 * test kit, operator token {@code op-token}): three deliveries parked in NEEDS_RECONCILIATION by an
 * accept-then-stall destination, one PUBLISHED. The read-only commands run first.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeliveriesCliIT {

  private static final String DESTINATION = "cli-dest";
  private static final Map<String, String> TOKEN = Map.of(DeliveriesCommand.TOKEN_ENV, "op-token");

  private TestKit kit;
  private TestKit.Destination destination;
  private DeliveryViews views;
  private String url;
  private final List<UUID> parked = new ArrayList<>();
  private UUID published;
  @TempDir Path dir;

  @BeforeAll
  void startConsumerWithParkedDeliveries(StackContext stack) throws Exception {
    kit = new TestKit(stack, "cli-deliveries", 1);
    destination = kit.destination(DESTINATION, Behaviour.bare());
    destination.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)), 3);
    HeraldConsumer consumer = kit.start(kit.properties(stack.groupId("cli"), destination));
    url = consumer.opsUri().toString();
    views = new DeliveryViews(stack.dataSource());
    for (int i = 1; i <= 3; i++) {
      PublicationKey key = new PublicationKey("t1", "a-cli-" + i, "r-1", DESTINATION);
      kit.sendAsync(TestKit.request(key, "Parked " + i));
      kit.flush();
      parked.add(awaitState(key, DeliveryState.NEEDS_RECONCILIATION).id());
    }
    PublicationKey publishedKey = new PublicationKey("t1", "a-cli-4", "r-1", DESTINATION);
    kit.sendAsync(TestKit.request(publishedKey, "Published"));
    kit.flush();
    published = awaitState(publishedKey, DeliveryState.PUBLISHED).id();
  }

  @AfterAll
  void stopConsumer() {
    if (kit != null) {
      kit.close();
    }
  }

  @Test
  @Order(1)
  void shouldListTheParkedDeliveriesAsATable() throws Exception {
    Result result =
        HeraldProcess.run(
            TOKEN, "deliveries", "list", "--state", "needs_reconciliation", "--consumer-url", url);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("ID ")
        .contains("STATE", "DESTINATION", "ATTEMPTS")
        .contains(parked.get(0).toString(), parked.get(1).toString(), parked.get(2).toString())
        .contains("NEEDS_RECONCILIATION", "t1/a-cli-1/r-1")
        .doesNotContain(published.toString())
        .endsWith("3 deliveries" + System.lineSeparator());
  }

  @Test
  @Order(2)
  void shouldListAsTheApisJsonAndFilterByDestination() throws Exception {
    Result json =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "list",
            "--state",
            "NEEDS_RECONCILIATION",
            "--limit",
            "2",
            "--json",
            "--consumer-url",
            url);
    assertThat(json.exitCode()).as(json.toString()).isZero();
    JsonNode array = Json.mapper().readTree(json.out());
    assertThat(array.isArray()).isTrue();
    assertThat(array).hasSize(2);
    assertThat(array.get(0).path("id").asText()).isEqualTo(parked.get(0).toString());
    assertThat(array.get(0).path("state").asText()).isEqualTo("NEEDS_RECONCILIATION");

    Result other =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "list",
            "--state",
            "NEEDS_RECONCILIATION",
            "--destination",
            "elsewhere",
            "--json",
            "--consumer-url",
            url);
    assertThat(other.exitCode()).as(other.toString()).isZero();
    assertThat(Json.mapper().readTree(other.out())).isEmpty();
  }

  @Test
  @Order(3)
  void shouldShowOneDeliveryFieldByField() throws Exception {
    Result result =
        HeraldProcess.run(
            TOKEN, "deliveries", "show", parked.get(0).toString(), "--consumer-url", url);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .containsPattern("(?m)^id +" + parked.get(0) + "$")
        .containsPattern("(?m)^state +NEEDS_RECONCILIATION$")
        .containsPattern("(?m)^destination +" + DESTINATION + "$")
        .containsPattern("(?m)^remoteId +-$");

    Result json =
        HeraldProcess.run(
            TOKEN, "deliveries", "show", parked.get(0).toString(), "--json", "--consumer-url", url);
    assertThat(json.exitCode()).as(json.toString()).isZero();
    JsonNode delivery = Json.mapper().readTree(json.out());
    assertThat(delivery.path("id").asText()).isEqualTo(parked.get(0).toString());
    assertThat(delivery.path("articleId").asText()).isEqualTo("a-cli-1");
  }

  @Test
  @Order(4)
  void shouldExitOneForAnUnknownDelivery() throws Exception {
    UUID unknown = UUID.randomUUID();
    Result result =
        HeraldProcess.run(TOKEN, "deliveries", "show", unknown.toString(), "--consumer-url", url);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("404").contains("no delivery " + unknown);
    assertThat(result.out()).isEmpty();
  }

  @Test
  @Order(5)
  void shouldFindTheApiAndTheTokenInTheConsumersPropertyFile() throws Exception {
    Path configDir = consumerConfigDir(true);
    Result result =
        HeraldProcess.run(
            Map.of(),
            "--config-dir",
            configDir.toString(),
            "deliveries",
            "list",
            "--state",
            "NEEDS_RECONCILIATION");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out()).contains(parked.get(0).toString());
  }

  @Test
  @Order(6)
  void shouldExitTwoWithoutAToken() throws Exception {
    Path configDir = consumerConfigDir(false);
    Result result =
        HeraldProcess.run(
            Map.of(),
            "--config-dir",
            configDir.toString(),
            "deliveries",
            "list",
            "--state",
            "NEEDS_RECONCILIATION");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
    assertThat(result.err()).contains("no operator token").contains(DeliveriesCommand.TOKEN_ENV);
  }

  @Test
  @Order(7)
  void shouldExitTwoWhenTheConsumerRefusesTheToken() throws Exception {
    Path tokenFile = Files.writeString(dir.resolve("wrong-token"), "not-the-token\n");
    Result result =
        HeraldProcess.run(
            Map.of(),
            "deliveries",
            "list",
            "--state",
            "UNCERTAIN",
            "--consumer-url",
            url,
            "--token-file",
            tokenFile.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
    assertThat(result.err()).contains("401").contains("refused the operator token");
  }

  @Test
  @Order(8)
  void shouldExitThreeWhenTheConsumerIsDown() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Result result =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "list",
            "--state",
            "UNCERTAIN",
            "--consumer-url",
            "http://127.0.0.1:" + port);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
    assertThat(result.err()).contains("did not answer");
  }

  @Test
  @Order(10)
  void shouldMarkADeliveryPublishedWithItsRemoteId() throws Exception {
    Path tokenFile = Files.writeString(dir.resolve("token"), "op-token\n");
    UUID id = parked.get(0);
    Result result =
        HeraldProcess.run(
            Map.of(),
            "deliveries",
            "resolve",
            id.toString(),
            "--published",
            "--remote-id",
            "remote-7",
            "--reason",
            "found it in the CMS",
            "--actor",
            "alice",
            "--consumer-url",
            url,
            "--token-file",
            tokenFile.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("delivery " + id + ": NEEDS_RECONCILIATION -> PUBLISHED (operator action ");
    DeliveryView view = views.find(id).orElseThrow();
    assertThat(view.state()).isEqualTo(DeliveryState.PUBLISHED);
    assertThat(view.remoteId()).isEqualTo("remote-7");
    assertThat(
            kit.query(
                "SELECT actor || ':' || reason FROM consumer.operator_action WHERE delivery_id = ?",
                id))
        .containsExactly("alice:found it in the CMS");
  }

  @Test
  @Order(11)
  void shouldRetryADeliveryThatThenPublishes() throws Exception {
    UUID id = parked.get(1);
    Result result =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "resolve",
            id.toString(),
            "--retry",
            "--reason",
            "destination fixed",
            "--actor",
            "bob",
            "--json",
            "--consumer-url",
            url);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode applied = Json.mapper().readTree(result.out());
    assertThat(applied.path("from").asText()).isEqualTo("NEEDS_RECONCILIATION");
    assertThat(applied.path("to").asText()).isEqualTo("PENDING");
    assertThat(UUID.fromString(applied.path("actionId").asText())).isNotNull();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> views.find(id).orElseThrow().state(), DeliveryState.PUBLISHED::equals);
  }

  @Test
  @Order(12)
  void shouldAbandonADelivery() throws Exception {
    UUID id = parked.get(2);
    Result result =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "resolve",
            id.toString(),
            "--abandon",
            "--reason",
            "article withdrawn",
            "--actor",
            "carol",
            "--consumer-url",
            url);

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out()).contains("NEEDS_RECONCILIATION -> ABANDONED");
    assertThat(views.find(id).orElseThrow().state()).isEqualTo(DeliveryState.ABANDONED);
  }

  @Test
  @Order(13)
  void shouldExitOneWhenTheStateRefusesTheAction() throws Exception {
    DeliveryView before = views.find(published).orElseThrow();
    Result result =
        HeraldProcess.run(
            TOKEN,
            "deliveries",
            "resolve",
            published.toString(),
            "--retry",
            "--reason",
            "why not",
            "--actor",
            "eve",
            "--consumer-url",
            url);

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("409").contains("not_allowed");
    assertThat(views.find(published).orElseThrow()).isEqualTo(before);
    assertThat(kit.query("SELECT count(*) FROM consumer.operator_action WHERE actor = 'eve'"))
        .containsExactly("0");
  }

  private DeliveryView awaitState(PublicationKey key, DeliveryState state) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> views.find(key), v -> v.isPresent() && v.get().state() == state)
        .orElseThrow();
  }

  /** The kit's consumer properties with the real ops port, with or without the operator token. */
  private Path consumerConfigDir(boolean withToken) throws IOException {
    Path configDir = Files.createDirectories(dir.resolve(withToken ? "with-token" : "no-token"));
    Properties properties = new Properties();
    kit.properties("cli-file", destination).forEach(properties::setProperty);
    properties.setProperty(
        "consumer.ops.port", Integer.toString(java.net.URI.create(url).getPort()));
    if (!withToken) {
      properties.remove("consumer.ops.operator-token");
    }
    try (Writer writer =
        Files.newBufferedWriter(configDir.resolve("consumer.properties"), StandardCharsets.UTF_8)) {
      properties.store(writer, "DeliveriesCliIT");
    }
    return configDir;
  }
}
