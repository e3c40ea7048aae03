package io.herald.relay.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The sink's {@code KafkaProducer} settings: Herald's defaults, overlaid by {@code
 * debezium.sink.kafka.producer.*}, with the settings the guarantee depends on forced.
 *
 * <ul>
 *   <li>{@code acks=all}, {@code enable.idempotence=true} (forced; the config refuses either under
 *       {@code debezium.sink.kafka.producer.*}): an acknowledged record is on every in-sync
 *       replica, and the producer's own retries neither duplicate nor reorder within a partition.
 *   <li>{@code max.in.flight.requests.per.connection=5}: the most idempotence allows while keeping
 *       order; the sink sends a whole batch before waiting, so several requests are in flight.
 *   <li>{@code linger.ms=5}, {@code batch.size=256 KiB}, {@code compression.type=lz4}: records of a
 *       batch travel in few, compressed requests; the sink flushes at the end of each engine batch,
 *       so the linger never delays the batch's tail.
 *   <li>{@code delivery.timeout.ms=120000}: the producer retries a send internally this long before
 *       the sink's own backoff takes over.
 *   <li>{@code transactional.id=herald-relay-<slot>} unless set: the sink writes in transactions so
 *       that a relay taking over fences the one before it at the broker (a frozen leader woken
 *       after the takeover gets every send refused, nothing it still held becomes visible). Every
 *       relay of one slot must use the same id, and relays of different slots or deployments
 *       sharing a cluster different ids.
 * </ul>
 */
public final class ProducerSettings {

  private ProducerSettings() {}

  /**
   * @param slotName the replication slot the relay streams from, which names the default {@code
   *     transactional.id}
   */
  public static Map<String, Object> from(
      Map<String, String> passThrough, String bootstrapServers, String slotName) {
    Map<String, Object> config = new HashMap<>();
    config.put("client.id", "herald-relay");
    config.put("max.in.flight.requests.per.connection", "5");
    config.put("linger.ms", "5");
    config.put("batch.size", Integer.toString(256 * 1024));
    config.put("compression.type", "lz4");
    config.put("delivery.timeout.ms", "120000");
    config.put("transactional.id", "herald-relay-" + slotName);
    config.putAll(passThrough);
    config.put("bootstrap.servers", bootstrapServers);
    config.put("acks", "all");
    config.put("enable.idempotence", "true");
    return config;
  }

  /**
   * The client settings the relay's own admin and consumer clients share with the producer (brokers
   * and security), without the producer-only ones.
   */
  public static Map<String, Object> clientSettings(Map<String, Object> producer) {
    Map<String, Object> client = new HashMap<>();
    producer.forEach(
        (key, value) -> {
          if (key.equals("bootstrap.servers")
              || key.startsWith("security.")
              || key.startsWith("ssl.")
              || key.startsWith("sasl.")) {
            client.put(key, value);
          }
        });
    return client;
  }
}
