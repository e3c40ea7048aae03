package io.herald.consumer.delivery;

/** What inserting a delivery for a received event did. */
public sealed interface IntakeResult {

  /** A new delivery, PENDING. */
  record Created(DeliverySnapshot delivery) implements IntakeResult {}

  /** The intent was already known with the same payload: nothing changed. */
  record Duplicate(DeliverySnapshot existing) implements IntakeResult {}

  /** The intent was already known with another payload: refused, nothing changed. */
  record Conflict(DeliverySnapshot existing, String existingPayloadHash) implements IntakeResult {}
}
