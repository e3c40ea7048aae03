package io.herald.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigDefTest {

  private static final ConfigDef.Builder KEYS = ConfigDef.builder("demo");
  static final ConfigKey<Integer> PORT =
      KEYS.define(ConfigKey.optional("demo.http.port", ConfigType.INT, 8080, "port"));
  static final ConfigGroup DESTS = KEYS.group("demo.destinations", "d");
  static final ConfigKey<String> DEST_URL =
      DESTS.define(ConfigKey.required("base-url", ConfigType.STRING, "u"));
  static final String PRODUCER = KEYS.passThrough("kafka.producer.", "producer");
  static final ConfigDef DEF = KEYS.build();

  @Test
  void shouldFindNoUndefinedKeyWhenAMessageNamesPlainGroupAndPassThroughKeys() {
    String message =
        "demo.http.port=1 contradicts demo.destinations.dest-a.base-url=http://demo.example/x:"
            + " see demo.destinations.<name>.base-url, demo.destinations.<name>.*,"
            + " kafka.producer.acks=all and kafka.producer.*.";

    assertEquals(List.of(), DEF.undefinedKeysIn(message));
  }

  @Test
  void shouldNameEveryUndefinedKeyOfTheProcessNamespaces() {
    String message =
        "demo.http.prot is wrong, demo.destination.dest-a.request-timeout too,"
            + " demo.destinations.dest-a.lookup-grace and kafka.consumer.group.id as well.";

    assertEquals(
        List.of(
            "demo.http.prot",
            "demo.destination.dest-a.request-timeout",
            "demo.destinations.dest-a.lookup-grace",
            "kafka.consumer.group.id"),
        DEF.undefinedKeysIn(message));
  }

  @Test
  void shouldIgnoreNamesOutsideTheNamespacesAndInValues() {
    String message =
        "demo.http.port: invalid value 'demo.nope' (env HERALD_DEMO_HTTP_PORT);"
            + " other.key and https://demo.example are not keys; x=demo.value neither";

    assertEquals(List.of(), DEF.undefinedKeysIn(message));
  }

  @Test
  void shouldDefineAPassThroughPrefixAndEverythingUnderIt() {
    assertTrue(DEF.defines("kafka.producer"));
    assertTrue(DEF.defines("kafka.producer.linger.ms"));
    assertFalse(DEF.defines("kafka.producers.linger.ms"));
    assertFalse(DEF.defines("demo.destinations..base-url"));
  }
}
