package io.herald.cli.dlq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.common.event.EventHeaders;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.consumer.TestKit;
import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.DeliveryView;
import io.herald.consumer.delivery.DeliveryViews;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.devstack.simulator.Behaviour;
import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald dlq} as separate OS processes against a running consumer (the consumer's test kit)
 * that dead-letters two poison records: one whose value is not JSON, and a valid request the
 * database refuses (a CHECK constraint planted for its article, dropped later: the cause fixed).
 * The destination ignores idempotency keys, so a second delivery would be a second article.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DlqCliIT {

  private static final String DESTINATION = "dlq-dest";
  private static final PublicationKey REFUSED =
      new PublicationKey("t1", "a-dlq-refused", "r-1", DESTINATION);
  private static final String REFUSE =
      "ALTER TABLE consumer.delivery ADD CONSTRAINT ck_dlq_cli_refused"
          + " CHECK (article_id <> 'a-dlq-refused') NOT VALID";

  private StackContext stack;
  private TestKit kit;
  private TestKit.Destination destination;
  private KafkaProducer<byte[], byte[]> producer;
  private DeliveryViews views;
  private String topic;
  private String dlqTopic;
  private Path configDir;
  private final UUID notJson = UUID.randomUUID();
  private final UUID refused = UUID.randomUUID();
  private Path dir;

  @BeforeAll
  void startConsumerAndDeadLetterTwoRecords(StackContext stack, @TempDir Path dir)
      throws Exception {
    this.stack = stack;
    this.dir = dir;
    kit = new TestKit(stack, "cli-dlq", 1);
    destination = kit.destination(DESTINATION, Behaviour.bare());
    Map<String, String> properties = kit.properties(stack.groupId("cli-dlq"), destination);
    topic = properties.get("consumer.topics.publication-events");
    dlqTopic = properties.get("consumer.topics.dlq");
    configDir = configDir("consumer", properties);
    views = new DeliveryViews(stack.dataSource());
    execute(REFUSE);
    kit.start(properties);
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
    send("t1/a-dlq-garbage", "{not json".getBytes(StandardCharsets.UTF_8), notJson, "t1");
    PublicationRequested request = TestKit.request(REFUSED, "Refused at first");
    send(
        REFUSED.aggregateId(),
        request.toJson().toString().getBytes(StandardCharsets.UTF_8),
        refused,
        "t1");
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> listJson().size() == 2);
  }

  @AfterAll
  void stop() throws SQLException {
    if (producer != null) {
      producer.close();
    }
    if (kit != null) {
      kit.close();
    }
    execute("ALTER TABLE consumer.delivery DROP CONSTRAINT IF EXISTS ck_dlq_cli_refused");
  }

  @Test
  @Order(1)
  void shouldListThePoisonRecordsWithTheirReasons() throws Exception {
    Result result = herald("dlq", "list");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("DLQ ")
        .containsPattern(
            "(?m)^0@0 +"
                + notJson
                + " +invalid_json +\\S+ +"
                + topic
                + "-0@0 +- +value is not valid JSON")
        .containsPattern(
            "(?m)^0@1 +"
                + refused
                + " +rejected_by_database +\\S+ +"
                + topic
                + "-0@1 +- +SQLState 23514")
        .endsWith(
            "2 dead letters in "
                + dlqTopic
                + "; 0 of those shown replayed"
                + System.lineSeparator());
  }

  @Test
  @Order(2)
  void shouldListAsJsonAndFilterByReason() throws Exception {
    Result result = herald("dlq", "list", "--json", "--reason", "rejected_by_database");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode letters = Json.mapper().readTree(result.out());
    assertThat(letters).hasSize(1);
    JsonNode letter = letters.get(0);
    assertThat(letter.path("id").asText()).isEqualTo(refused.toString());
    assertThat(letter.path("reason").asText()).isEqualTo("rejected_by_database");
    assertThat(letter.path("detail").asText()).contains("ck_dlq_cli_refused");
    assertThat(letter.path("originalTopic").asText()).isEqualTo(topic);
    assertThat(letter.path("originalPartition").asInt()).isZero();
    assertThat(letter.path("originalOffset").asLong()).isEqualTo(1);
    assertThat(letter.path("failedAt").asText()).isNotBlank();
    assertThat(letter.path("replayedAt").isNull()).isTrue();

    Result limited = herald("dlq", "list", "--limit", "1");
    assertThat(limited.out()).contains("2 dead letters in " + dlqTopic + "; the first 1 shown");
  }

  @Test
  @Order(3)
  void shouldRefuseAnIdThatIsNotInTheDlqAndReplayNothing() throws Exception {
    UUID unknown = UUID.randomUUID();
    Result result = herald("dlq", "replay", "--id", refused.toString(), unknown.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("not in " + dlqTopic + ": " + unknown + "; nothing replayed");
    assertThat(kit.query("SELECT count(*) FROM consumer.dlq_replay")).containsExactly("0");
  }

  @Test
  @Order(4)
  void shouldExitTwoForBadUsage() throws Exception {
    Result neither = herald("dlq", "replay");
    assertThat(neither.exitCode()).as(neither.toString()).isEqualTo(2);

    Result both = herald("dlq", "replay", "--all", "--id", refused.toString());
    assertThat(both.exitCode()).as(both.toString()).isEqualTo(2);
  }

  @Test
  @Order(10)
  void shouldReplayARecordWhoseCauseIsFixedIntoExactlyOneDelivery() throws Exception {
    assertThat(views.find(REFUSED)).isEmpty();
    assertThat(kit.query("SELECT count(*) FROM consumer.inbox WHERE message_id = ?", refused))
        .as("a dead letter writes no inbox row")
        .containsExactly("0");
    execute("ALTER TABLE consumer.delivery DROP CONSTRAINT ck_dlq_cli_refused");

    Result result = herald("dlq", "replay", "--id", refused.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("replayed " + refused + " (DLQ 0@1, rejected_by_database) to " + topic + "-0@")
        .endsWith("1 replayed, 0 already replayed, 0 skipped" + System.lineSeparator());
    DeliveryView delivery =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> views.find(REFUSED),
                v -> v.isPresent() && v.get().state() == DeliveryState.PUBLISHED)
            .orElseThrow();
    assertThat(deliveries()).isEqualTo(1);
    assertThat(destination.simulator().createRequests(idempotencyKey())).isEqualTo(1);
    assertThat(delivery.remoteId()).isNotNull();
  }

  @Test
  @Order(11)
  void shouldChangeNothingWhenTheSameDeadLetterIsReplayedAgain() throws Exception {
    Result json = herald("dlq", "replay", "--id", refused.toString(), "--json");

    assertThat(json.exitCode()).as(json.toString()).isZero();
    JsonNode results = Json.mapper().readTree(json.out());
    assertThat(results).hasSize(1);
    assertThat(results.get(0).path("outcome").asText()).isEqualTo("already_replayed");
    assertThat(results.get(0).path("replayedTo").asText()).startsWith(topic + "-0@");

    Result human = herald("dlq", "replay", "--id", refused.toString());
    assertThat(human.exitCode()).as(human.toString()).isZero();
    assertThat(human.out())
        .contains("already replayed " + refused + " (DLQ 0@1, rejected_by_database) at ")
        .contains(": nothing to do")
        .endsWith("0 replayed, 1 already replayed, 0 skipped" + System.lineSeparator());

    // A later record on the same partition, once published, proves intake has read past anything
    // the second replay could have produced.
    PublicationKey fence = new PublicationKey("t1", "a-dlq-fence", "r-1", DESTINATION);
    send(
        fence.aggregateId(),
        TestKit.request(fence, "Fence").toJson().toString().getBytes(StandardCharsets.UTF_8),
        UUID.randomUUID(),
        "t1");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> views.find(fence),
            v -> v.isPresent() && v.get().state() == DeliveryState.PUBLISHED);
    assertThat(deliveries()).isEqualTo(1);
    assertThat(destination.simulator().createRequests(idempotencyKey())).isEqualTo(1);
    assertThat(kit.query("SELECT count(*) FROM consumer.dlq_replay")).containsExactly("1");
    assertThat(listJson()).hasSize(2);
  }

  @Test
  @Order(12)
  void shouldShowTheReplayInTheList() throws Exception {
    List<JsonNode> letters = listJson();

    JsonNode replayed =
        letters.stream()
            .filter(l -> l.path("id").asText().equals(refused.toString()))
            .findFirst()
            .orElseThrow();
    assertThat(replayed.path("replayedAt").asText()).isNotBlank();
    assertThat(replayed.path("replayedTo").asText()).startsWith(topic + "-0@");
    Result human = herald("dlq", "list");
    assertThat(human.out())
        .containsPattern("(?m)^0@1 +" + refused + " .* -> " + topic + "-0@[0-9]+ ")
        .endsWith("; 1 of those shown replayed" + System.lineSeparator());
  }

  @Test
  @Order(13)
  void shouldReplayTheRestWithAllAndDeadLetterAgainWhatIsStillBroken() throws Exception {
    Result result = herald("dlq", "replay", "--all");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("replayed " + notJson + " (DLQ 0@0, invalid_json) to " + topic)
        .contains("already replayed " + refused)
        .endsWith("1 replayed, 1 already replayed, 0 skipped" + System.lineSeparator());
    // Its cause (the bytes) is not fixed: intake sets it aside again, naming the dead letter it
    // repeats.
    List<JsonNode> letters =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1))
            .until(this::listJson, l -> l.size() == 3);
    JsonNode again = letters.get(2);
    assertThat(again.path("id").asText()).isEqualTo(notJson.toString());
    assertThat(again.path("reason").asText()).isEqualTo("invalid_json");
    assertThat(again.path("replayOf").asText()).isEqualTo(dlqTopic + "-0@0");
    assertThat(again.path("replayedAt").isNull()).isTrue();
    assertThat(deliveries()).isEqualTo(1);
  }

  @Test
  @Order(20)
  void shouldExitThreeWhenKafkaIsUnreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Result result =
        HeraldProcess.run(
            Map.of("HERALD_CONSUMER_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:" + port),
            "--config-dir",
            configDir.toString(),
            "--kafka-timeout",
            "2s",
            "dlq",
            "list");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
    assertThat(result.err()).contains("127.0.0.1:" + port).contains("no answer within 2s");
  }

  private Result herald(String... args) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("--config-dir", configDir.toString()));
    all.addAll(List.of(args));
    return HeraldProcess.run(Map.of(), all.toArray(String[]::new));
  }

  private List<JsonNode> listJson() throws IOException, InterruptedException {
    Result result = herald("dlq", "list", "--json");
    assertThat(result.exitCode()).as(result.toString()).isZero();
    List<JsonNode> letters = new ArrayList<>();
    Json.mapper().readTree(result.out()).forEach(letters::add);
    return letters;
  }

  private int deliveries() {
    return Integer.parseInt(
        kit.query(
                "SELECT count(*) FROM consumer.delivery WHERE tenant_id = ? AND article_id = ?",
                REFUSED.tenant(),
                REFUSED.articleId())
            .getFirst());
  }

  private String idempotencyKey() {
    return kit.query(
            "SELECT idempotency_key FROM consumer.delivery WHERE article_id = ?",
            REFUSED.articleId())
        .getFirst();
  }

  /** A record as the relay writes one, with the event id we choose. */
  private void send(String key, byte[] value, UUID id, String tenant) throws Exception {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value);
    record.headers().add(EventHeaders.ID, id.toString().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(
            EventHeaders.EVENT_TYPE,
            EventTypes.PUBLICATION_REQUESTED.getBytes(StandardCharsets.UTF_8));
    record.headers().add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
    producer.send(record).get(30, TimeUnit.SECONDS);
  }

  private void execute(String sql) throws SQLException {
    try (Connection connection = stack.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private Path configDir(String name, Map<String, String> properties) throws IOException {
    Path configDir = Files.createDirectories(dir.resolve(name));
    Properties file = new Properties();
    properties.forEach(file::setProperty);
    try (Writer writer =
        Files.newBufferedWriter(configDir.resolve("consumer.properties"), StandardCharsets.UTF_8)) {
      file.store(writer, "DlqCliIT");
    }
    return configDir;
  }
}
