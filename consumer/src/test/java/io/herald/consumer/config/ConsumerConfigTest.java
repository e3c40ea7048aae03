package io.herald.consumer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigException;
import io.herald.config.ConfigGroup;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigSource;
import io.herald.consumer.breaker.BreakerSettings;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.destination.DestinationProfile;
import io.herald.consumer.destination.GuaranteeTier;
import io.herald.devstack.ShippedConfig;
import io.herald.runtime.inbox.InboxLoop;
import io.herald.runtime.inbox.InboxSettings;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsumerConfigTest {

  private static final ShippedConfig SHIPPED = ShippedConfig.of("consumer");

  private static ConfigException fails(Map<String, String> props) {
    return assertThrows(
        ConfigException.class, () -> ConsumerConfig.from(ConfigSource.of(props, Map.of())));
  }

  @Test
  void shouldParseTheShippedPropertyFile() {
    ConsumerConfig config = ConsumerConfig.load(SHIPPED.file(), Map.of());

    assertEquals(8083, config.ops().port());
    assertEquals("herald-consumer", config.inbox().groupId());
    assertEquals(Duration.ofMinutes(2), config.dispatch().lease());
    assertEquals("false", InboxLoop.consumerProperties(config.inbox()).get("enable.auto.commit"));
    // One destination of each kind: keys and lookup, neither, lookup only.
    assertEquals(3, config.destinations().size());
    DestinationConfig a = config.destinations().get("dest-a");
    assertTrue(a.idempotencyKeySupported());
    assertEquals(Duration.ofSeconds(30), a.readTimeout());
    assertEquals(Optional.empty(), a.authToken());
    DestinationConfig c = config.destinations().get("dest-c");
    assertFalse(c.idempotencyKeySupported());
    assertTrue(c.lookupSupported());
  }

  @Test
  void shouldRefuseClientSettingsHeraldOwnsUnderThePassThroughPrefixes() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("kafka.consumer.enable.auto.commit", "true");
    props.put("kafka.consumer.value.deserializer", "com.example.Json");
    props.put("kafka.producer.acks", "1");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("kafka.consumer.enable.auto.commit=true is set by Herald"),
        e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("kafka.consumer.value.deserializer=com.example.Json is set by Herald"),
        e.getMessage());
    assertTrue(e.getMessage().contains("kafka.producer.acks=1 is set by Herald"), e.getMessage());
  }

  @Test
  void shouldRefuseADeadLetterTopicThatIsTheEventTopic() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.topics.dlq", "herald.publication.events");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage().contains("consumer.topics.dlq=herald.publication.events equals"),
        e.getMessage());
  }

  @Test
  void shouldDocumentEveryKeyInTheShippedFile() throws IOException {
    SHIPPED.assertDocumentsEveryKey(ConsumerConfig.definition(), "dest-a");
  }

  @Test
  void shouldTakeADestinationTokenFromTheEnvironmentAndNeverRenderIt() {
    ConsumerConfig config =
        ConsumerConfig.load(
            SHIPPED.file(),
            Map.of("HERALD_CONSUMER_DESTINATIONS_DEST_A_AUTH_TOKEN", "tok-never-logged"));

    assertEquals(Optional.of("tok-never-logged"), config.destinations().get("dest-a").authToken());
    assertFalse(config.effective().render().contains("tok-never-logged"));
    assertFalse(config.destinations().get("dest-a").toString().contains("tok-never-logged"));
  }

  @Test
  void shouldAddADestinationDefinedOnlyInTheEnvironment() {
    ConsumerConfig config =
        ConsumerConfig.load(
            SHIPPED.file(),
            Map.of("HERALD_CONSUMER_DESTINATIONS_DEST_C_BASE_URL", "https://c.example"));

    assertEquals(URI.create("https://c.example"), config.destinations().get("dest-c").baseUrl());
  }

  @Test
  void shouldFailWhenBackoffBaseExceedsMax() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.dispatch.backoff-base", "10m");
    props.put("consumer.dispatch.backoff-max", "1m");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.dispatch.backoff-base=10m"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.dispatch.backoff-max=1m"), e.getMessage());
  }

  /** F12: a dead instance's claims expire within the heartbeat timeout plus one round. */
  @Test
  void shouldLeaseClaimsForFifteenSecondsAndReconcileEveryFiveWhenNotSet() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.remove("consumer.dispatch.heartbeat-timeout");
    props.remove("consumer.reconcile.interval");

    ConsumerConfig config = ConsumerConfig.from(ConfigSource.of(props, Map.of()));

    assertEquals(Duration.ofSeconds(15), config.dispatch().heartbeatTimeout());
    assertEquals(Duration.ofMinutes(2), config.dispatch().lease());
    assertEquals(Duration.ofSeconds(5), config.reconcile().interval());
  }

  @Test
  void shouldFailWhenTheLeaseIsShorterThanADestinationCall() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.dispatch.lease", "20s");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.dispatch.lease=20s"), e.getMessage());
    assertTrue(
        e.getMessage().contains("consumer.destinations.dest-a.read-timeout=30s"), e.getMessage());
  }

  @Test
  void shouldFailWhenInboxRetentionIsShorterThanTheRedeliveryWindow() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.inbox.retention", "1d");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("consumer.inbox.retention=1d"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.inbox.redelivery-window=7d"), e.getMessage());
  }

  @Test
  void shouldFailWhenKafkaGroupIsSetTwiceDifferently() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("kafka.consumer.group.id", "other");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("kafka.consumer.group.id=other"), e.getMessage());
    assertTrue(e.getMessage().contains("consumer.kafka.group-id=herald-consumer"), e.getMessage());
  }

  @Test
  void shouldFailOnAPassedThroughMaxPollRecordsThatIsNotAPositiveNumber() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("kafka.consumer.max.poll.records", "lots");

    ConfigException e = fails(props);

    assertTrue(e.getMessage().contains("kafka.consumer.max.poll.records=lots"), e.getMessage());
  }

  @Test
  void shouldFailOnABadDestinationUrlAndDurationNamingThem() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-b.base-url", "ftp://nope");
    props.put("consumer.destinations.dest-b.read-timeout", "30");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage()
            .contains("consumer.destinations.dest-b.base-url: invalid value 'ftp://nope'"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("consumer.destinations.dest-b.read-timeout: invalid value '30'"),
        e.getMessage());
  }

  @Test
  void shouldReadEachDestinationsBreakerWithTheDefaultsWhereUnset() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-b.breaker.failures", "0");
    props.put("consumer.destinations.dest-c.breaker.open-for", "2m");

    ConsumerConfig config = ConsumerConfig.from(ConfigSource.of(props, Map.of()));

    assertEquals(
        new BreakerSettings(5, Duration.ofSeconds(30)),
        config.destinations().get("dest-a").breaker());
    assertFalse(config.destinations().get("dest-b").breaker().enabled());
    assertEquals(
        new BreakerSettings(5, Duration.ofMinutes(2)),
        config.destinations().get("dest-c").breaker());
  }

  @Test
  void shouldFailOnABadBreakerSettingNamingTheKey() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-a.breaker.failures", "-1");
    props.put("consumer.destinations.dest-b.breaker.open-for", "0s");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage()
            .contains("consumer.destinations.dest-a.breaker.failures: invalid value '-1'"),
        e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("consumer.destinations.dest-b.breaker.open-for: invalid value '0s'"),
        e.getMessage());
  }

  /** Moved from the dispatcher, which no longer checks it: the configuration does, once. */
  @Test
  void shouldRefuseALeaseThatDoesNotOutlastTheCallItCovers() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.dispatch.lease", "35s");

    ConfigException e = fails(props);

    assertTrue(
        e.getMessage()
            .contains(
                "consumer.dispatch.lease=35s is not longer than"
                    + " consumer.destinations.dest-b.connect-timeout=5s"
                    + " + consumer.destinations.dest-b.read-timeout=30s"),
        e.getMessage());
  }

  @Test
  void shouldBuildTheComponentRecordsFromTheirKeys() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.ops.host", "0.0.0.0");
    props.put("consumer.capture.slot", "other_slot");
    props.put("consumer.topics.dlq", "dead");
    props.put("kafka.producer.linger.ms", "5");
    props.put("consumer.dispatch.owner", "instance-1");
    props.put("consumer.dispatch.pool-size", "3");
    props.put("consumer.dispatch.backoff-base", "2s");
    props.put("consumer.reconcile.grace-period", "45s");
    props.put("consumer.outbox.keep-days", "3");
    props.put("consumer.outbox.purge-batch-size", "50");

    ConsumerConfig config = ConsumerConfig.from(ConfigSource.of(props, Map.of()));

    assertEquals("0.0.0.0", config.ops().host());
    assertEquals("other_slot", config.capture().slot());
    assertEquals("dead", config.deadLetters().topic());
    assertEquals(Map.of("linger.ms", "5"), config.deadLetters().producerOverrides());
    assertEquals("instance-1", config.dispatch().owner());
    assertEquals(3, config.dispatch().poolSize());
    assertEquals(Duration.ofSeconds(2), config.dispatch().backoffBase());
    assertEquals(Duration.ofSeconds(45), config.reconcile().gracePeriod());
    assertEquals(Duration.ofDays(3), config.retention().outboxRetention());
    assertEquals(50, config.retention().purgeBatchSize());
    assertEquals(Duration.ofDays(14), config.retention().inboxRetention());
    assertEquals(
        URI.create("http://localhost:8090/dest-b"), config.destinations().get("dest-b").baseUrl());
  }

  @Test
  void shouldKeepNoOutboxRowWhenRetentionIsDeleteImmediately() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.outbox.retention", "delete-immediately");

    assertEquals(
        Duration.ZERO,
        ConsumerConfig.from(ConfigSource.of(props, Map.of())).retention().outboxRetention());
  }

  @Test
  void shouldNameClaimsAfterHostAndProcessWhenNoOwnerIsSet() {
    ConsumerConfig config = ConsumerConfig.load(SHIPPED.file(), Map.of());

    assertTrue(
        config.dispatch().owner().endsWith(":" + ProcessHandle.current().pid()),
        config.dispatch().owner());
  }

  /**
   * Every key an error message names must exist, or be the key the configuration itself got wrong:
   * a message that sends the reader to a key that does not exist is worse than none. The bad
   * configurations: every key and every destination key with values it cannot take, each misspelt,
   * each required key missing, and every contradiction the consumer checks (each of which must
   * fail, or the check proves nothing about it).
   */
  @Test
  void shouldNameOnlyDefinedKeysInEveryErrorMessage() throws IOException {
    ConfigDef def = ConsumerConfig.definition();
    Map<String, String> shipped = SHIPPED.properties();
    List<Map<String, String>> bad = new ArrayList<>();
    List<String> names = new ArrayList<>(def.keys().stream().map(ConfigKey::name).toList());
    for (ConfigGroup group : def.groups()) {
      group.keys().forEach(member -> names.add(group.fullName("dest-a", member)));
    }
    for (String name : names) {
      for (String value : List.of("#bad#", "-1", "0", "99999999999", "true", "ftp://x", "1s")) {
        bad.add(Map.of(name, value));
      }
      bad.add(Map.of(name + "x", "1"));
    }
    List<Map<String, String>> contradictions =
        List.of(
            Map.of("consumer.dispatch.backoff-base", "10m", "consumer.dispatch.backoff-max", "1m"),
            Map.of("consumer.dispatch.lease", "35s"),
            Map.of("consumer.inbox.retention", "1d"),
            Map.of("consumer.outbox.retention", "keep", "consumer.outbox.keep-days", "0"),
            Map.of("consumer.topics.dlq", shipped.get("consumer.topics.publication-events")),
            Map.of("consumer.destinations.dest-a.dedup-window", "30s"),
            Map.of("consumer.destinations.dest-b.idempotency-header", "Idempotency-Key"),
            Map.of("consumer.destinations.dest-b.conflict", "exists"),
            Map.of("consumer.destinations.dest-b.errors-replayed", "true"),
            Map.of("consumer.destinations.dest-a.replay-marker-header", "none"));
    bad.addAll(contradictions);
    for (String owned : InboxSettings.OWNED) {
      bad.add(Map.of(ConsumerConfig.KAFKA_CONSUMER + owned, "x"));
    }
    for (String owned :
        List.of(
            "bootstrap.servers",
            "acks",
            "enable.idempotence",
            "key.serializer",
            "value.serializer")) {
      bad.add(Map.of(ConsumerConfig.KAFKA_PRODUCER + owned, "x"));
    }

    List<String> messages = new ArrayList<>();
    List<String> undefined = new ArrayList<>();
    for (Map<String, String> change : bad) {
      Map<String, String> props = new HashMap<>(shipped);
      props.putAll(change);
      List<String> found = messagesOf(props, Map.of());
      if (contradictions.contains(change)) {
        assertFalse(found.isEmpty(), "accepted: " + change);
      }
      collect(def, found, change.keySet(), messages, undefined);
    }
    List<Map<String, String>> missing = new ArrayList<>();
    Map<String, String> noDestinations = new HashMap<>(shipped);
    noDestinations.keySet().removeIf(k -> k.startsWith("consumer.destinations."));
    missing.add(noDestinations);
    for (String name : names) {
      Map<String, String> without = new HashMap<>(shipped);
      without.remove(name);
      missing.add(without);
    }
    for (Map<String, String> props : missing) {
      collect(def, messagesOf(props, Map.of()), Set.of(), messages, undefined);
    }
    collect(
        def,
        messagesOf(shipped, Map.of("HERALD_CONSUMER_DISPATCH_LEASEX", "1m")),
        Set.of(),
        messages,
        undefined);

    assertTrue(messages.size() > 150, "too few failing configurations: " + messages.size());
    assertEquals(List.of(), undefined);
  }

  /** Collects {@code found} and the undefined keys they name, but the configuration's own. */
  private static void collect(
      ConfigDef def,
      List<String> found,
      Set<String> ownKeys,
      List<String> messages,
      List<String> undefined) {
    for (String message : found) {
      messages.add(message);
      def.undefinedKeysIn(message).stream()
          .filter(named -> !ownKeys.contains(named))
          .forEach(named -> undefined.add(named + " in: " + message));
    }
  }

  private static List<String> messagesOf(Map<String, String> props, Map<String, String> env) {
    try {
      ConsumerConfig.from(ConfigSource.of(props, env));
      return List.of();
    } catch (ConfigException e) {
      return e.problems();
    }
  }

  @Test
  void shouldGiveEachShippedDestinationTheTierItsProfileAllows() {
    ConsumerConfig config = ConsumerConfig.load(SHIPPED.file(), Map.of());

    DestinationProfile a = config.destinations().get("dest-a").profile();
    assertEquals(GuaranteeTier.EXACTLY_ONCE_IN_EFFECT, a.tier());
    assertEquals(
        "exactly-once in effect (key Idempotency-Key, window 1d, then lookup)", a.guarantee());
    assertEquals(
        GuaranteeTier.AT_MOST_ONCE_OPERATOR, config.destinations().get("dest-b").profile().tier());
    assertEquals(
        GuaranteeTier.EFFECT_ONCE_BY_LOOKUP, config.destinations().get("dest-c").profile().tier());
    // The window less one call (connect 5s + read 30s): what a resend must land inside.
    assertEquals(
        Duration.ofHours(24).minusSeconds(35), config.destinations().get("dest-a").resendWindow());
  }

  @Test
  void shouldTakeEveryProfileKeyFromThePresetUnlessSet() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.keySet().removeIf(k -> k.startsWith("consumer.destinations.dest-a."));
    props.put("consumer.destinations.dest-a.base-url", "http://a.example");
    props.put("consumer.destinations.dest-a.profile", "checkout-like");
    props.put("consumer.destinations.dest-a.dedup-window", "1h");
    props.put("consumer.destinations.dest-a.idempotency-header", "X-Request-Id");
    props.put("consumer.destinations.dest-a.rate-limit", "20");

    DestinationProfile a =
        ConsumerConfig.from(ConfigSource.of(props, Map.of()))
            .destinations()
            .get("dest-a")
            .profile();

    assertEquals(DestinationProfile.Preset.CHECKOUT_LIKE, a.preset());
    assertEquals(Optional.of("X-Request-Id"), a.idempotencyHeader());
    assertEquals(Duration.ofHours(1), a.dedupWindow());
    assertEquals(DestinationProfile.Conflict.EXISTS, a.conflict());
    assertEquals(Optional.empty(), a.lookupPath());
    assertEquals("/id", a.remoteIdField());
    assertTrue(a.honourRetryAfter());
    assertEquals(20, a.rateLimit());
  }

  @Test
  void shouldLetNoneRemoveWhatThePresetHas() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-a.idempotency-header", "none");
    props.put("consumer.destinations.dest-a.errors-replayed", "false");
    props.put("consumer.destinations.dest-a.lookup-path", "none");

    DestinationProfile a =
        ConsumerConfig.from(ConfigSource.of(props, Map.of()))
            .destinations()
            .get("dest-a")
            .profile();

    assertEquals(GuaranteeTier.AT_MOST_ONCE_OPERATOR, a.tier());
  }

  @Test
  void shouldRefuseAKeyWithoutAWindowAndAWindowNoResendFitsIn() throws IOException {
    Map<String, String> noWindow = SHIPPED.properties();
    noWindow.put("consumer.destinations.dest-b.idempotency-header", "Idempotency-Key");
    Map<String, String> tooShort = SHIPPED.properties();
    tooShort.put("consumer.destinations.dest-a.dedup-window", "30s");

    String missing = fails(noWindow).getMessage();
    String contradiction = fails(tooShort).getMessage();

    assertTrue(
        missing.contains(
            "consumer.destinations.dest-b.idempotency-header=Idempotency-Key needs"
                + " consumer.destinations.dest-b.dedup-window"),
        missing);
    assertTrue(
        contradiction.contains(
            "consumer.destinations.dest-a.dedup-window=30s is not longer than"
                + " consumer.destinations.dest-a.connect-timeout=5s"
                + " + consumer.destinations.dest-a.read-timeout=30s"),
        contradiction);
  }

  @Test
  void shouldRefuseKeySemanticsWithoutAKeyAndReplayedErrorsWithoutAMarker() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-b.conflict", "exists");
    props.put("consumer.destinations.dest-c.errors-replayed", "true");
    props.put("consumer.destinations.dest-a.replay-marker-header", "none");

    String message = fails(props).getMessage();

    assertTrue(
        message.contains(
            "consumer.destinations.dest-b.conflict=exists needs"
                + " consumer.destinations.dest-b.idempotency-header"),
        message);
    assertTrue(
        message.contains(
            "consumer.destinations.dest-c.errors-replayed=true needs"
                + " consumer.destinations.dest-c.idempotency-header"),
        message);
    assertTrue(
        message.contains(
            "consumer.destinations.dest-a.errors-replayed=true needs"
                + " consumer.destinations.dest-a.replay-marker-header"),
        message);
  }

  @Test
  void shouldRefuseALookupPathWithoutTheReference() throws IOException {
    Map<String, String> props = SHIPPED.properties();
    props.put("consumer.destinations.dest-c.lookup-path", "/articles/by-ref");

    String message = fails(props).getMessage();

    assertTrue(
        message.contains(
            "consumer.destinations.dest-c.lookup-path: invalid value '/articles/by-ref'"),
        message);
  }

  @Test
  void shouldMatchTheGeneratedTableInDocs() throws IOException {
    SHIPPED.assertDocsTableMatches(ConsumerConfig.definition());
  }
}
