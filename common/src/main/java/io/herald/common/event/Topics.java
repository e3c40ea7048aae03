package io.herald.common.event;

/**
 * Default Kafka topic names. Every process lets them be configured (tests use unique names), so
 * these are defaults for configuration keys, not names to hard-code.
 */
public final class Topics {

  /** {@link EventTypes#PUBLICATION_REQUESTED} events, from {@code writer.outbox}. */
  public static final String PUBLICATION_EVENTS = "herald.publication.events";

  /** Delivery status changes, from {@code consumer.outbox}. */
  public static final String DELIVERY_EVENTS = "herald.delivery.events";

  /** Records the consumer could not parse or validate, with the reason. */
  public static final String PUBLICATION_DLQ = "herald.publication.dlq";

  /** The relay's Debezium offsets. */
  public static final String RELAY_OFFSETS = "herald.relay.offsets";

  /** Debezium heartbeats ({@code topic.heartbeat.prefix} + "." + {@code topic.prefix}). */
  public static final String HEARTBEATS = "__debezium-heartbeat.herald";

  private Topics() {}
}
