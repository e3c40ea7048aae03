package io.herald.cli.monitor;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one sample read, source by source, before anything is computed from it. Immutable.
 *
 * @param at when the sample was taken
 * @param oldest from the consumer's operator API: per state (UNCERTAIN, NEEDS_RECONCILIATION) the
 *     oldest {@code updatedAt} among the listed deliveries; a state with none is absent
 */
record Observation(
    Instant at,
    Reading<Scrape> writer,
    Reading<Scrape> relay,
    Reading<RelayHealth> relayHealth,
    Reading<Scrape> consumer,
    Reading<Map<String, Instant>> oldest,
    Reading<KafkaFacts> kafka) {

  Observation {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(relay, "relay");
    Objects.requireNonNull(relayHealth, "relayHealth");
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(oldest, "oldest");
    Objects.requireNonNull(kafka, "kafka");
  }

  /** Whether any source answered: with {@code --once}, none means exit 3. */
  boolean anyReached() {
    return writer.reached()
        || relay.reached()
        || relayHealth.reached()
        || consumer.reached()
        || oldest.reached()
        || kafka.reached();
  }
}
