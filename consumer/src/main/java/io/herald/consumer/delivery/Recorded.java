package io.herald.consumer.delivery;

import java.util.Objects;

/**
 * A claim holder's result as recorded ({@link DeliveryQueue#completeAll}).
 *
 * @param delivery the delivery after the transition
 * @param releasedLater whether the transition made the delivery final while a later delivery of its
 *     article and destination was open: that one was held back by this one (guarantee 5) and may
 *     now be due, so its destination should claim again
 */
public record Recorded(DeliverySnapshot delivery, boolean releasedLater) {

  public Recorded {
    Objects.requireNonNull(delivery, "delivery");
  }
}
