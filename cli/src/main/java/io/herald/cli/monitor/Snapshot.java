package io.herald.cli.monitor;

import io.herald.consumer.delivery.DeliveryState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One view of the pipeline, computed from the samples by {@link #of}; {@code --json} prints it as
 * is. A figure whose source did not answer is null, and {@link #sources} says why. Immutable.
 *
 * @param at when the newest sample was taken (ISO-8601)
 * @param sources every source with where it is and {@code ok}, {@code unreachable: ...} or {@code
 *     not configured: ...}
 * @param deliveries the consumer's {@code herald_consumer_deliveries} per state, in the states'
 *     order (the consumer refreshes it every {@code consumer.reconcile.interval})
 * @param unknownDestination deliveries for a destination the consumer has no configuration for
 *     (they wait for an operator's retry or abandon), with the oldest one's age
 * @param anyReached false when no source answered
 * @param destinations each destination's guarantee tier, from the consumer's {@code
 *     herald_consumer_destination_info}, marked paused or breaker open/half-open from {@code
 *     herald_consumer_destination_paused} and {@code herald_consumer_destination_breaker_state}
 *     (null when the consumer did not answer)
 */
record Snapshot(
    String at,
    List<Source> sources,
    Counters.Rates rates,
    Map<String, Long> deliveries,
    Attention uncertain,
    Attention needsReconciliation,
    Attention unknownDestination,
    DeadLetters dlq,
    Relay relay,
    Heartbeat heartbeat,
    ConsumerLag consumerLag,
    boolean anyReached,
    Map<String, String> destinations) {

  /**
   * The consumer's {@code herald_consumer_destination_info}: one series per destination, its
   * guarantee tier in the labels {@code tier} and {@code guarantee} (the tier as operators read
   * it).
   */
  static final String DESTINATION_INFO = "herald_consumer_destination_info";

  /** 1 while an operator pause holds the destination. */
  static final String DESTINATION_PAUSED = "herald_consumer_destination_paused";

  /** The consumer's breaker of the destination: 0 closed, 1 half-open, 2 open. */
  static final String DESTINATION_BREAKER = "herald_consumer_destination_breaker_state";

  /** The consumer's per-state gauge. */
  static final String DELIVERIES = "herald_consumer_deliveries";

  static final String RELAY_STREAMING = "herald_relay_streaming";
  static final String RELAY_SLOT_LAG = "herald_relay_slot_lag_bytes";

  /** A source of the view, where it is, and whether it answered. */
  record Source(String name, String endpoint, String status) {}

  /**
   * Deliveries that need watching.
   *
   * @param count from the consumer's per-state gauge
   * @param oldestAgeSeconds since the oldest one's last change, from the operator API; null when
   *     there is none or the API did not answer
   */
  record Attention(Long count, Double oldestAgeSeconds) {}

  /**
   * @param sinceStart records that reached the dead-letter topic since the monitor started
   * @param onTopic records the topic holds
   * @param lastArrivalAgeSeconds since the newest one, or null
   */
  record DeadLetters(Long sinceStart, Long onTopic, Double lastArrivalAgeSeconds) {}

  /**
   * @param state the relay's phase from {@code /health} in lower case ({@code streaming}, {@code
   *     standby}, ...), else {@code streaming} or {@code standby} from {@code
   *     herald_relay_streaming}
   * @param slotLagBytes {@code herald_relay_slot_lag_bytes}; null when not measured (a standby)
   */
  record Relay(String state, Long slotLagBytes) {}

  /**
   * @param source {@code topic <name>} when the heartbeat topic holds a record, else {@code relay
   *     last batch} (the relay's {@code /health}: a streaming relay hands over a batch, heartbeats
   *     included, at least every heartbeat interval)
   */
  record Heartbeat(String source, Double ageSeconds) {}

  /** Records of {@code topic} not yet committed by {@code group}. */
  record ConsumerLag(String group, String topic, Long records) {}

  /** What the view names: where each source is, and the topics and group it reads. */
  record Names(
      String writer,
      String relay,
      String consumer,
      String operatorApi,
      String kafka,
      String publicationEvents,
      String dlq,
      String heartbeats,
      String group) {}

  Snapshot {
    Objects.requireNonNull(at, "at");
    sources = List.copyOf(sources);
  }

  /**
   * The view of {@code current}, with rates since {@code previous} (null for none) and dead letters
   * since {@code dlqBaseline} (the dead-letter topic's end offsets when the monitor first reached
   * Kafka; null for none yet).
   */
  static Snapshot of(Names names, Long dlqBaseline, Observation previous, Observation current) {
    Instant now = current.at();
    List<Source> sources = new ArrayList<>();
    sources.add(new Source("writer", names.writer(), current.writer().status()));
    sources.add(new Source("relay", names.relay(), relayStatus(current)));
    sources.add(new Source("consumer", names.consumer(), current.consumer().status()));
    sources.add(new Source("operator-api", names.operatorApi(), current.oldest().status()));
    sources.add(new Source("kafka", names.kafka(), current.kafka().status()));

    Map<String, Long> deliveries =
        current
            .consumer()
            .map(
                s -> {
                  Map<String, Double> gauge = s.byLabel(DELIVERIES, "state");
                  Map<String, Long> ordered = new LinkedHashMap<>();
                  for (DeliveryState state : DeliveryState.values()) {
                    ordered.put(state.name(), Math.round(gauge.getOrDefault(state.name(), 0.0)));
                  }
                  return ordered;
                })
            .orElse(null);

    KafkaFacts kafka = current.kafka().value();
    DeadLetters dlq =
        kafka == null
            ? new DeadLetters(null, null, null)
            : new DeadLetters(
                dlqBaseline == null ? 0 : Math.max(0, kafka.dlqEnd() - dlqBaseline),
                kafka.dlqRecords(),
                age(kafka.lastDlq(), now));

    return new Snapshot(
        now.toString(),
        sources,
        Counters.rates(previous, current),
        deliveries,
        attention(current, deliveries, DeliveryState.UNCERTAIN, now),
        attention(current, deliveries, DeliveryState.NEEDS_RECONCILIATION, now),
        attention(current, deliveries, DeliveryState.UNKNOWN_DESTINATION, now),
        dlq,
        relay(current),
        heartbeat(names, current, now),
        new ConsumerLag(
            names.group(), names.publicationEvents(), kafka == null ? null : kafka.consumerLag()),
        current.anyReached(),
        current.consumer().map(Snapshot::destinations).orElse(null));
  }

  /**
   * Each destination's guarantee, as the running consumer computed it from its profile, followed by
   * {@code [paused]} while an operator pause holds it and {@code [breaker open]} or {@code [breaker
   * half-open]} while that consumer's breaker is not closed.
   */
  private static Map<String, String> destinations(Scrape scrape) {
    Map<String, String> tiers = new java.util.TreeMap<>();
    Map<String, String> marks = new java.util.TreeMap<>();
    for (Scrape.Sample sample : scrape.samples()) {
      String destination = sample.labels().get("destination");
      if (destination == null) {
        continue;
      }
      if (sample.name().equals(DESTINATION_INFO)) {
        tiers.put(
            destination,
            sample.labels().getOrDefault("guarantee", sample.labels().getOrDefault("tier", "?")));
      } else if (sample.name().equals(DESTINATION_PAUSED) && sample.value() >= 1) {
        marks.merge(destination, " [paused]", (a, b) -> b + a);
      } else if (sample.name().equals(DESTINATION_BREAKER) && sample.value() >= 1) {
        marks.merge(
            destination,
            sample.value() >= 2 ? " [breaker open]" : " [breaker half-open]",
            String::concat);
      }
    }
    marks.forEach((destination, mark) -> tiers.computeIfPresent(destination, (d, t) -> t + mark));
    return tiers;
  }

  private static String relayStatus(Observation o) {
    if (o.relay().reached() || o.relayHealth().reached()) {
      return "ok";
    }
    return o.relay().status();
  }

  private static Attention attention(
      Observation o, Map<String, Long> deliveries, DeliveryState state, Instant now) {
    Long count = deliveries == null ? null : deliveries.get(state.name());
    Double age = o.oldest().map(oldest -> age(oldest.get(state.name()), now)).orElse(null);
    return new Attention(count, age);
  }

  private static Relay relay(Observation o) {
    String state =
        o.relayHealth()
            .map(RelayHealth::phase)
            .map(String::toLowerCase)
            .or(
                () ->
                    o.relay()
                        .map(s -> s.sum(RELAY_STREAMING).orElse(Double.NaN))
                        .filter(v -> !v.isNaN())
                        .map(v -> v >= 1 ? "streaming" : "standby"))
            .orElse(null);
    Long lag =
        o.relay()
            .map(s -> s.sum(RELAY_SLOT_LAG).orElse(-1))
            .filter(v -> v >= 0)
            .map(Math::round)
            .orElse(null);
    return new Relay(state, lag);
  }

  private static Heartbeat heartbeat(Names names, Observation o, Instant now) {
    KafkaFacts kafka = o.kafka().value();
    if (kafka != null && kafka.lastHeartbeat() != null) {
      return new Heartbeat("topic " + names.heartbeats(), age(kafka.lastHeartbeat(), now));
    }
    return o.relayHealth()
        .get()
        .flatMap(RelayHealth::lastBatch)
        .map(batch -> new Heartbeat("relay last batch", batch.toMillis() / 1000.0))
        .orElse(new Heartbeat(null, null));
  }

  private static Double age(Instant then, Instant now) {
    if (then == null) {
      return null;
    }
    return Math.max(0, Duration.between(then, now).toMillis()) / 1000.0;
  }
}
