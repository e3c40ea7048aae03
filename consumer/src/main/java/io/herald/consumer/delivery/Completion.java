package io.herald.consumer.delivery;

import java.util.Objects;

/**
 * A claim holder's result to record ({@link DeliveryQueue#completeAll}): the transition the policy
 * decided for {@code claim} and the call behind it. Immutable.
 */
public record Completion(ClaimedDelivery claim, Transition transition, Attempt attempt) {

  public Completion {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(transition, "transition");
    Objects.requireNonNull(attempt, "attempt");
  }
}
