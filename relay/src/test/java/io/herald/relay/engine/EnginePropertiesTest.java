package io.herald.relay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.herald.relay.debezium.CachedTopicNames;
import io.herald.relay.debezium.DebeziumPatches;
import io.herald.relay.debezium.FixedTopicEventRouter;
import io.herald.relay.debezium.HeraldPostgresConnector;
import io.herald.relay.debezium.IdleWaitSocketFactory;
import io.herald.relay.debezium.LeanSourceInfo;
import io.herald.relay.debezium.StreamIdleWait;
import io.herald.relay.debezium.TopicIs;
import io.herald.runtime.db.DatabaseConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnginePropertiesTest {

  private static Map<String, String> source() {
    Map<String, String> source = new HashMap<>();
    source.put("database.hostname", "db");
    source.put("database.user", "relay");
    source.put("database.dbname", "herald");
    return source;
  }

  private static EngineProperties build(Map<String, String> source) {
    return build(source, DebeziumPatches.ON);
  }

  private static EngineProperties build(Map<String, String> source, DebeziumPatches patches) {
    return EngineProperties.from(
        source,
        List.of(),
        Map.of(),
        List.of(),
        Map.of(),
        "k:9092",
        "pub.events",
        "del.events",
        patches);
  }

  @Test
  void shouldRouteEachOutboxTableToItsConfiguredTopic() {
    EngineProperties properties = build(source());

    assertThat(properties.get("transforms")).isEqualTo("heraldWriterOutbox,heraldConsumerOutbox");
    assertThat(properties.get("transforms.heraldWriterOutbox.route.topic.replacement"))
        .isEqualTo("pub.events");
    assertThat(properties.get("transforms.heraldConsumerOutbox.route.topic.replacement"))
        .isEqualTo("del.events");
    assertThat(properties.get("transforms.heraldWriterOutbox.type"))
        .isEqualTo(FixedTopicEventRouter.class.getName());
    assertThat(properties.get("transforms.heraldConsumerOutbox.type"))
        .isEqualTo(FixedTopicEventRouter.class.getName());
    assertThat(properties.get("predicates.heraldWriterOutbox.type"))
        .isEqualTo(TopicIs.class.getName());
    assertThat(properties.get("predicates.heraldWriterOutbox.topic"))
        .isEqualTo("herald.writer.outbox");
    assertThat(properties.get("predicates.heraldConsumerOutbox.topic"))
        .isEqualTo("herald.consumer.outbox");
    assertThat(properties.get("heartbeat.action.query")).contains("'herald_relay'");
    assertThat(properties.get("bootstrap.servers")).isEqualTo("k:9092");
  }

  @Test
  void shouldGiveDebeziumsConnectionsTheIdleWaitSocketFactoryUnlessTheWaitIsZero() {
    EngineProperties properties = build(source());

    EngineProperties waiting =
        properties.withStreamIdleWait(
            new StreamIdleWait(Duration.ofMillis(200), Duration.ofMillis(250)));

    assertThat(waiting.get("database.socketFactory"))
        .isEqualTo(IdleWaitSocketFactory.class.getName());
    assertThat(waiting.get("database.socketFactoryArg")).isEqualTo("200,250");
    assertThat(
            properties.withStreamIdleWait(
                new StreamIdleWait(Duration.ZERO, Duration.ofMillis(250))))
        .isSameAs(properties);
    assertThat(properties.get("database.socketFactory")).isNull();
  }

  @Test
  void shouldLeaveOutOnlyTheOutboxColumnsNoRouterReads() {
    EngineProperties properties = build(source());

    assertThat(properties.get("column.exclude.list"))
        .isEqualTo("writer\\.outbox\\.occurred_at,consumer\\.outbox\\.occurred_at");
  }

  @Test
  void shouldReplaceTheDefaultExclusionWhenAnIncludeListIsGiven() {
    Map<String, String> source = source();
    source.put(
        "column.include.list",
        "(writer|consumer)\\.outbox\\.(id|aggregate_id|aggregate_type|payload|event_type"
            + "|tenant_id|trace_parent|trace_state),herald_relay\\.heartbeat\\..*");

    EngineProperties properties = build(source);

    assertThat(properties.get("column.exclude.list")).isNull();
  }

  @Test
  void shouldRunHeraldsSubclassOfThePostgresConnector() {
    assertThat(build(source()).get("connector.class"))
        .isEqualTo(HeraldPostgresConnector.class.getName());

    Map<String, String> named = source();
    named.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    assertThat(build(named).get("connector.class"))
        .isEqualTo(HeraldPostgresConnector.class.getName());
  }

  @Test
  void shouldRunStockDebeziumEverywhereWhenThePatchesAreOff() {
    Map<String, String> named = source();
    named.put("connector.class", HeraldPostgresConnector.class.getName());

    EngineProperties stock =
        build(source(), DebeziumPatches.OFF)
            .withStreamIdleWait(new StreamIdleWait(Duration.ofMillis(200), Duration.ofMillis(250)));

    assertThat(stock.get("connector.class"))
        .isEqualTo("io.debezium.connector.postgresql.PostgresConnector");
    assertThat(build(named, DebeziumPatches.OFF).get("connector.class"))
        .isEqualTo("io.debezium.connector.postgresql.PostgresConnector");
    assertThat(stock.get("sourceinfo.struct.maker")).isNull();
    assertThat(stock.get("topic.naming.strategy")).isNull();
    assertThat(stock.get("database.socketFactory")).isNull();
    assertThat(stock.get("transforms.heraldWriterOutbox.type"))
        .isEqualTo("io.debezium.transforms.outbox.EventRouter");
    for (DebeziumPatches patches : DebeziumPatches.values()) {
      assertThat(patches.newRouter().getClass().getName())
          .as("the router the recovery makes is the one the engine is told to run")
          .isEqualTo(patches.routerType());
    }
    assertThat(stock.get("predicates.heraldWriterOutbox.type"))
        .isEqualTo("org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
    assertThat("herald.writer.outbox").matches(stock.get("predicates.heraldWriterOutbox.pattern"));
    assertThat("heraldXwriterXoutbox")
        .doesNotMatch(stock.get("predicates.heraldWriterOutbox.pattern"));
    assertThat("herald.consumer.outbox")
        .matches(stock.get("predicates.heraldConsumerOutbox.pattern"));
  }

  @Test
  void shouldNameTheEngineAsTheSourceSaysSoItsOffsetsAreReadUnderThatName() {
    Map<String, String> renamed = source();
    renamed.put("name", "relay-eu");

    assertThat(build(source()).engineName()).isEqualTo(EngineProperties.ENGINE_NAME);
    assertThat(build(renamed).engineName()).isEqualTo("relay-eu");
  }

  @Test
  void shouldReadTheBatchSizeAndTheHeartbeatInterval() {
    Map<String, String> noHeartbeat = source();
    noHeartbeat.put("heartbeat.interval.ms", "0");

    assertThat(build(source()).maxBatchSize()).isEqualTo(512);
    assertThat(build(source()).heartbeatInterval()).contains(Duration.ofSeconds(10));
    assertThat(build(noHeartbeat).heartbeatInterval()).isEmpty();
  }

  @Test
  void shouldBuildTheLeanSourceBlockAndCacheTopicNamesUnlessTold() {
    EngineProperties defaults = build(source());
    Map<String, String> debezium = source();
    debezium.put(
        "sourceinfo.struct.maker",
        "io.debezium.connector.postgresql.PostgresSourceInfoStructMaker");

    assertThat(defaults.get("sourceinfo.struct.maker")).isEqualTo(LeanSourceInfo.class.getName());
    assertThat(defaults.get("topic.naming.strategy")).isEqualTo(CachedTopicNames.class.getName());
    assertThat(build(debezium).get("sourceinfo.struct.maker"))
        .isEqualTo("io.debezium.connector.postgresql.PostgresSourceInfoStructMaker");
  }

  @Test
  void shouldSendEachOffsetCommitAtOnceUnlessTheSourceSaysOtherwise() {
    // The engine waits for each commit on the thread that feeds the sink: Kafka's default linger
    // (5 ms) would hold every commit, and the events behind it, that long.
    Map<String, String> lingering = source();
    lingering.put("linger.ms", "5");

    assertThat(build(source()).get("linger.ms")).isEqualTo("0");
    assertThat(build(source(), DebeziumPatches.OFF).get("linger.ms")).isEqualTo("0");
    assertThat(build(lingering).get("linger.ms")).isEqualTo("5");
  }

  @Test
  void shouldGiveTheOffsetStoreTheSinksKafkaSecurity() {
    Map<String, Object> client =
        Map.of(
            "bootstrap.servers", "k:9093",
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-512",
            "ssl.truststore.location", "/etc/herald/kafka-ca.p12");
    EngineProperties secured = build(source()).withKafkaClient(client);

    assertThat(secured.get("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(secured.get("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
    assertThat(secured.get("ssl.truststore.location")).isEqualTo("/etc/herald/kafka-ca.p12");
    assertThat(secured.get("bootstrap.servers"))
        .as("from relay.kafka.bootstrap-servers")
        .isEqualTo("k:9092");
  }

  @Test
  void shouldGiveTheRelaysOwnConnectionsTheConnectorsTlsSettings() {
    Map<String, String> source = source();
    source.put("database.port", "6432");
    source.put("database.sslmode", "verify-full");
    source.put("database.sslrootcert", "/etc/herald/ca root.pem");
    source.put("database.sslpassword", "secret");

    assertThat(build(source).jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://db:6432/herald?sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fherald%2Fca+root.pem");
  }

  @Test
  void shouldGiveTheRelaysOwnConnectionsTheCredentialsAndTheKeyPassphraseOutsideTheUrl() {
    Map<String, String> source = source();
    source.put("database.password", "pw");
    source.put("database.sslmode", "verify-full");
    source.put("database.sslkey", "/etc/herald/client.pk8");
    source.put("database.sslpassword", "key-passphrase");

    DatabaseConfig database = build(source).database(2, Duration.ofSeconds(10));

    assertThat(database.jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://db:5432/herald?sslmode=verify-full"
                + "&sslkey=%2Fetc%2Fherald%2Fclient.pk8");
    assertThat(database.user()).isEqualTo("relay");
    assertThat(database.password()).isEqualTo("pw");
    assertThat(database.driverSecrets()).containsExactly(entry("sslpassword", "key-passphrase"));
    assertThat(database.poolSize()).isEqualTo(2);
    assertThat(build(source()).database(2, Duration.ofSeconds(10)).driverSecrets()).isEmpty();
  }

  @Test
  void shouldBuildAPlainUrlWithoutTlsSettings() {
    assertThat(build(source()).jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/herald");
  }
}
