package io.herald.cli.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.HeraldProcess;
import io.herald.cli.HeraldProcess.Result;
import io.herald.cli.kafka.Partitions;
import io.herald.common.json.Json;
import io.herald.config.ConfigSource;
import io.herald.consumer.TestKit;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.ShippedConfig;
import io.herald.devstack.StackContext;
import io.herald.devstack.process.ChildJvm;
import io.herald.devstack.simulator.Behaviour;
import io.herald.devstack.simulator.Fault;
import io.herald.schema.CaptureSettings;
import io.herald.schema.HeraldSchema;
import io.herald.schema.SchemaMigrator;
import io.herald.writer.WriterProcess;
import io.herald.writer.auth.TenantTokens;
import io.herald.writer.config.WriterConfig;
import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald trace} as a separate OS process against the real pipeline: a writer (in-process,
 * real HTTP), a relay (a child JVM streaming both outboxes to Kafka) and a consumer (the consumer's
 * test kit) publishing to a simulator with a lookup. The one job's first publish is accepted and
 * then stalled past the read timeout (UNCERTAIN); the reconciler's lookup finds the article
 * (PUBLISHED); the writer's view follows the status events.
 */
@HeraldIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TraceCliIT {

  private static final String TENANT = "t1";
  private static final String TOKEN = "trace-token-0123456789";
  private static final String DESTINATION = "trace-dest";
  private static final String ARTICLE = "a-trace";
  private static final String REVISION = "r/2026-12-01";

  private TestKit kit;
  private ChildJvm relay;
  private WriterProcess writer;
  private DataSource dataSource;
  private String publicationTopic;
  private String deliveryTopic;
  private String bootstrapServers;
  private UUID jobId;
  private UUID deliveryId;
  private UUID eventId;
  private String remoteId;
  private Path configDir;

  @BeforeAll
  void startThePipelineAndPublishOneJobUncertainThenPublished(StackContext stack, @TempDir Path dir)
      throws Exception {
    dataSource = stack.dataSource();
    bootstrapServers = stack.bootstrapServers();
    kit = new TestKit(stack, "cli-trace", 3);
    CaptureSettings capture = new CaptureSettings(stack.publication(), stack.slot());
    SchemaMigrator.migrate(dataSource, HeraldSchema.WRITER, capture);
    deliveryTopic = stack.topic("cli-trace-delivery-events");
    stack.stack().kafka().createTopic(deliveryTopic, 2);

    TestKit.Destination destination =
        kit.destination(DESTINATION, Behaviour.bare().withLookup(true));
    Map<String, String> consumer = kit.properties(stack.groupId("cli-trace"), destination);
    publicationTopic = consumer.get("consumer.topics.publication-events");
    relay = startRelay(stack, dir);
    writer =
        WriterProcess.start(WriterConfig.from(ConfigSource.of(writerProperties(stack), Map.of())));
    kit.start(consumer);

    destination.simulator().failNext(new Fault.StallAfterAccept(Duration.ofSeconds(3)));
    HttpResponse<String> created = post(writer.apiUri());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                query(
                    "SELECT status FROM writer.publication_job WHERE tenant_id = ? AND article_id = ?",
                    TENANT,
                    ARTICLE),
            rows -> rows.equals(List.of("PUBLISHED")));
    jobId =
        UUID.fromString(
            query("SELECT id::text FROM writer.publication_job WHERE article_id = ?", ARTICLE)
                .get(0));
    List<String> delivery =
        query(
            "SELECT id || '|' || message_id || '|' || remote_id FROM consumer.delivery"
                + " WHERE article_id = ?",
            ARTICLE);
    String[] parts = delivery.get(0).split("\\|");
    deliveryId = UUID.fromString(parts[0]);
    eventId = UUID.fromString(parts[1]);
    remoteId = parts[2];

    configDir = dir.resolve("config");
    Files.createDirectories(configDir);
    write(configDir.resolve("writer.properties"), writerProperties(stack));
    write(configDir.resolve("consumer.properties"), consumer);
  }

  @AfterAll
  void stopThePipeline() {
    if (kit != null) {
      kit.close();
    }
    if (writer != null) {
      writer.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void shouldPrintTheChainOfAnUncertainThenPublishedJobInTimeOrder() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of(), "--config-dir", configDir.toString(), "trace", jobId.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    int partition = Partitions.forKey(TENANT + "/" + ARTICLE + "/" + DESTINATION, 3);
    long offset = offsetOf(publicationTopic, partition, eventId);
    String out = result.out();
    assertThat(out)
        .as(result.toString())
        .startsWith("job " + jobId + "  t1/a-trace/r/2026-12-01/trace-dest")
        .containsPattern(
            "(?m) writer +job " + jobId + " created for t1/a-trace/r/2026-12-01/trace-dest ")
        .containsPattern(
            "(?m) kafka +PublicationRequested "
                + eventId
                + " in "
                + publicationTopic
                + " partition "
                + partition
                + " offset "
                + offset
                + " \\(1 copy\\)$")
        .containsPattern(
            "(?m) consumer +inbox row \\(consumer.delivery-intake\\) for event " + eventId + "$")
        .containsPattern(
            "(?m) consumer +delivery " + deliveryId + " created from event " + eventId + "$")
        .containsPattern(
            "(?m) attempt +#1 publish, claim token 1 by \\S+: uncertain, no HTTP answer, \\d+ ms"
                + " -> UNCERTAIN, request sha256:[0-9a-f]{12} \\(no answer within the request"
                + " timeout after sending\\)$")
        .containsPattern(
            "(?m) attempt +#1 lookup, claim token 2 by \\S+: found, HTTP 200, \\d+ ms -> PUBLISHED"
                + " remote id "
                + remoteId
                + "$")
        .containsPattern(
            "(?m) kafka +PublicationUncertain UNCERTAIN in "
                + deliveryTopic
                + " partition [01] offset \\d+")
        .containsPattern(
            "(?m) kafka +PublicationPublished PUBLISHED remote id "
                + remoteId
                + " in "
                + deliveryTopic
                + " partition [01] offset \\d+")
        .containsPattern(
            "(?m) writer +view PUBLISHED remote id " + remoteId + " \\(from status event ")
        .doesNotContain("GAP")
        .endsWith(
            "now: delivery PUBLISHED remote id "
                + remoteId
                + ", 2 attempts, 2 status events, 0 operator actions; writer view PUBLISHED remote id "
                + remoteId
                + "; chain complete"
                + System.lineSeparator());
    List<String> order =
        out.lines()
            .skip(1)
            .map(line -> line.replaceFirst("^\\S+ +(\\S+) +(\\S+).*", "$1 $2"))
            .toList();
    assertThat(order)
        .containsSubsequence(
            "writer job",
            "kafka PublicationRequested",
            "attempt #1",
            "kafka PublicationUncertain",
            "attempt #1",
            "kafka PublicationPublished",
            "writer view");
  }

  @Test
  void shouldPrintTheTraceAsJsonWhenAskedByTheBusinessKey() throws Exception {
    Result result =
        HeraldProcess.run(
            Map.of(),
            "--config-dir",
            configDir.toString(),
            "trace",
            TENANT + "/" + ARTICLE + "/" + REVISION + "/" + DESTINATION,
            "--json");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    JsonNode trace = Json.mapper().readTree(result.out());
    assertThat(trace.path("job").path("id").asText()).isEqualTo(jobId.toString());
    assertThat(trace.path("job").path("status").asText()).isEqualTo("PUBLISHED");
    assertThat(trace.path("job").path("remoteId").asText()).isEqualTo(remoteId);
    JsonNode event = trace.path("publicationEvent");
    int partition = Partitions.forKey(TENANT + "/" + ARTICLE + "/" + DESTINATION, 3);
    assertThat(event.path("eventId").asText()).isEqualTo(eventId.toString());
    assertThat(event.path("partition").asInt()).isEqualTo(partition);
    assertThat(event.path("offset").asLong())
        .isEqualTo(offsetOf(publicationTopic, partition, eventId));
    assertThat(event.path("copies").asInt()).isEqualTo(1);
    assertThat(trace.path("inbox").path("handler").asText()).isEqualTo("consumer.delivery-intake");
    assertThat(trace.path("delivery").path("state").asText()).isEqualTo("PUBLISHED");
    JsonNode attempts = trace.path("attempts");
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).path("kind").asText()).isEqualTo("PUBLISH");
    assertThat(attempts.get(0).path("claimToken").asLong()).isEqualTo(1);
    assertThat(attempts.get(0).path("outcome").asText()).isEqualTo("uncertain");
    assertThat(attempts.get(0).path("httpStatus").isNull()).isTrue();
    assertThat(attempts.get(0).path("recordedState").asText()).isEqualTo("UNCERTAIN");
    assertThat(attempts.get(0).path("requestHash").asText()).matches("[0-9a-f]{64}");
    assertThat(attempts.get(1).path("requestHash").isNull()).isTrue();
    assertThat(attempts.get(0).path("startedAt").asText()).isNotBlank();
    assertThat(attempts.get(0).path("endedAt").asText()).isNotBlank();
    assertThat(attempts.get(1).path("kind").asText()).isEqualTo("LOOKUP");
    assertThat(attempts.get(1).path("claimToken").asLong()).isEqualTo(2);
    assertThat(attempts.get(1).path("httpStatus").asInt()).isEqualTo(200);
    assertThat(attempts.get(1).path("recordedState").asText()).isEqualTo("PUBLISHED");
    List<String> states = new ArrayList<>();
    trace.path("statusEvents").forEach(e -> states.add(e.path("state").asText()));
    assertThat(states).containsExactly("UNCERTAIN", "PUBLISHED");
    assertThat(trace.path("statusScan").path("topic").asText()).isEqualTo(deliveryTopic);
    assertThat(trace.path("chain").size()).isGreaterThanOrEqualTo(9);
    assertThat(trace.path("gaps")).isEmpty();
  }

  @Test
  void shouldExitOneForAJobTheWriterDoesNotHave() throws Exception {
    UUID unknown = UUID.randomUUID();

    Result result =
        HeraldProcess.run(
            Map.of(), "--config-dir", configDir.toString(), "trace", unknown.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("no job " + unknown + " in writer.publication_job");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void shouldExitTwoForAnArgumentThatIsNeitherAJobIdNorABusinessKey() throws Exception {
    Result result =
        HeraldProcess.run(Map.of(), "--config-dir", configDir.toString(), "trace", "t1/a-trace");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
    assertThat(result.err()).contains("four parts");
  }

  @Test
  void shouldExitThreeWhenTheWritersDatabaseCannotBeReached() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }

    Result result =
        HeraldProcess.run(
            Map.of(
                "HERALD_WRITER_DB_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + closed + "/herald"),
            "--config-dir",
            configDir.toString(),
            "trace",
            jobId.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
    assertThat(result.err()).contains("cannot connect to the writer's database");
  }

  private Map<String, String> writerProperties(StackContext stack) {
    Map<String, String> p = new HashMap<>(ShippedConfig.of("writer").properties());
    p.put("writer.http.port", "0");
    p.put("writer.ops.port", "0");
    p.put("writer.db.jdbc-url", stack.jdbcUrl());
    p.put("writer.db.user", stack.user());
    p.put("writer.db.password", stack.password() == null ? "" : stack.password());
    // The test stack has no herald_migrator role: the superuser migrates through the pool.
    p.remove("writer.db.migration-user");
    p.put("writer.capture.publication", stack.publication());
    p.put("writer.capture.slot", stack.slot());
    p.put("writer.kafka.bootstrap-servers", stack.bootstrapServers());
    p.put("writer.status.topic", deliveryTopic);
    p.put("writer.status.group-id", stack.groupId("cli-trace-writer-status"));
    p.put("writer.tenants.t1.token-sha256", TenantTokens.sha256Hex(TOKEN));
    p.remove("writer.tenants.t2.token-sha256");
    return p;
  }

  /** The shipped relay.properties with this class's database, slot, topics and ops port. */
  private ChildJvm startRelay(StackContext stack, Path dir) throws Exception {
    int ops;
    try (ServerSocket socket = new ServerSocket(0)) {
      ops = socket.getLocalPort();
    }
    Map<String, String> env = new HashMap<>();
    env.put("HERALD_RELAY_OPS_PORT", Integer.toString(ops));
    env.put("HERALD_RELAY_KAFKA_BOOTSTRAP_SERVERS", stack.bootstrapServers());
    env.put("HERALD_RELAY_TOPICS_PUBLICATION_EVENTS", publicationTopic);
    env.put("HERALD_RELAY_TOPICS_DELIVERY_EVENTS", deliveryTopic);
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_HOSTNAME", stack.stack().postgres().host());
    env.put(
        "HERALD_DEBEZIUM_SOURCE_DATABASE_PORT", Integer.toString(stack.stack().postgres().port()));
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_DBNAME", stack.database());
    env.put("HERALD_DEBEZIUM_SOURCE_DATABASE_USER", stack.user());
    env.put(
        "HERALD_DEBEZIUM_SOURCE_DATABASE_PASSWORD",
        stack.password() == null ? "" : stack.password());
    env.put("HERALD_DEBEZIUM_SOURCE_PUBLICATION_NAME", stack.publication());
    env.put("HERALD_DEBEZIUM_SOURCE_SLOT_NAME", stack.slot());
    env.put("HERALD_DEBEZIUM_SOURCE_OFFSET_STORAGE_TOPIC", stack.topic("cli-trace-relay-offsets"));
    ChildJvm started =
        ChildJvm.builder("relay", "io.herald.relay.RelayMain")
            .jvmOptions(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
            .logbackConfig(ShippedConfig.of("relay").logbackFile())
            .args(ShippedConfig.of("relay").file().toString())
            .env(env)
            .logFile(dir.resolve("relay.log"))
            .start();
    started.awaitHealthy(URI.create("http://127.0.0.1:" + ops + "/health"), Duration.ofMinutes(2));
    return started;
  }

  private HttpResponse<String> post(URI api) throws IOException, InterruptedException {
    String body =
        "{\"articleId\":\""
            + ARTICLE
            + "\",\"revisionId\":\""
            + REVISION
            + "\",\"destination\":\""
            + DESTINATION
            + "\",\"content\":{\"title\":\"Traced\",\"body\":\"Once, in the end.\"}}";
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
          HttpRequest.newBuilder(api.resolve("/v1/publications"))
              .timeout(Duration.ofSeconds(30))
              .header("Authorization", "Bearer " + TOKEN)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  /** The offset of the record with the {@code id} header {@code eventId}, read independently. */
  private long offsetOf(String topic, int partition, UUID eventId) {
    Map<String, Object> settings =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings)) {
      TopicPartition tp = new TopicPartition(topic, partition);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          var id = record.headers().lastHeader("id");
          if (id != null
              && new String(id.value(), StandardCharsets.UTF_8).equals(eventId.toString())) {
            return record.offset();
          }
        }
      }
    }
    throw new AssertionError("no record with id " + eventId + " in " + topic + "-" + partition);
  }

  private List<String> query(String sql, Object... args) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setObject(i + 1, args[i]);
      }
      List<String> rows = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.add(result.getString(1));
        }
      }
      return rows;
    }
  }

  private static void write(Path file, Map<String, String> properties) throws IOException {
    Properties p = new Properties();
    p.putAll(properties);
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(out, "herald trace test");
    }
  }
}
