package io.herald.consumer.pause;

import java.time.Instant;
import java.util.Objects;

/**
 * The last operator decision about a destination: paused or resumed, by whom, why, when (database
 * time). Immutable.
 */
public record PauseState(
    String destination, boolean paused, String actor, String reason, Instant changedAt) {

  public PauseState {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(changedAt, "changedAt");
  }
}
