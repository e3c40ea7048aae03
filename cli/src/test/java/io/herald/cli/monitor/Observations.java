package io.herald.cli.monitor;

import java.time.Instant;
import java.util.Map;

/** Observations for the tests: every source unreachable unless a test sets it. */
final class Observations {

  static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");

  static final Snapshot.Names NAMES =
      new Snapshot.Names(
          "http://127.0.0.1:8081",
          "http://127.0.0.1:8082",
          "http://127.0.0.1:8083",
          "http://127.0.0.1:8083/v1/deliveries",
          "localhost:9092",
          "herald.publication.events",
          "herald.publication.dlq",
          "__debezium-heartbeat.herald",
          "herald-consumer");

  private Observations() {}

  static Observation down(Instant at) {
    return new Observation(
        at,
        Reading.unreachable("Connection refused"),
        Reading.unreachable("Connection refused"),
        Reading.unreachable("Connection refused"),
        Reading.unreachable("Connection refused"),
        Reading.notConfigured("no operator token"),
        Reading.unreachable("no answer within 5 s"));
  }

  static Observation with(Observation o, String source, Object value) {
    return new Observation(
        o.at(),
        source.equals("writer") ? Reading.of((Scrape) value) : o.writer(),
        source.equals("relay") ? Reading.of((Scrape) value) : o.relay(),
        source.equals("relayHealth") ? Reading.of((RelayHealth) value) : o.relayHealth(),
        source.equals("consumer") ? Reading.of((Scrape) value) : o.consumer(),
        source.equals("oldest") ? Reading.of(cast(value)) : o.oldest(),
        source.equals("kafka") ? Reading.of((KafkaFacts) value) : o.kafka());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Instant> cast(Object value) {
    return (Map<String, Instant>) value;
  }
}
