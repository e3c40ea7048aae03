package io.herald.consumer.delivery;

import java.util.Objects;

/**
 * The deliveries of one destination in one unsettled state (UNCERTAIN, NEEDS_RECONCILIATION): the
 * uncertainty budget that destination's dedup window bounds.
 *
 * @param count how many
 * @param oldestFirstAttemptSeconds age of the oldest one's first attempt (the start of its dedup
 *     window), by the database's clock
 */
public record Unsettled(
    String destination, DeliveryState state, long count, long oldestFirstAttemptSeconds) {

  public Unsettled {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(state, "state");
  }
}
