package io.herald.consumer.dispatch;

import java.time.Duration;
import java.util.Objects;

/**
 * How the dispatcher claims and retries.
 *
 * @param owner this instance's claim owner name (host and process id by default)
 * @param lease how long a claim is exclusively this instance's; must outlast any destination call
 * @param pollInterval how long the dispatcher idles when no work was due
 * @param maxAttempts attempts before a retriable failure becomes final
 * @param shutdownGrace how long a graceful stop waits for in-flight calls to be recorded
 */
public record DispatchSettings(
    String owner,
    Duration lease,
    Duration pollInterval,
    int maxAttempts,
    Duration backoffInitial,
    Duration backoffMax,
    Duration shutdownGrace) {

  public DispatchSettings {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(backoffInitial, "backoffInitial");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(shutdownGrace, "shutdownGrace");
    if (owner.isBlank()) {
      throw new IllegalArgumentException("consumer.dispatch.owner must not be blank");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException(
          "consumer.dispatch.max-attempts must be at least 1: " + maxAttempts);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("consumer.dispatch.lease must be positive: " + lease);
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException(
          "consumer.dispatch.poll-interval must be positive: " + pollInterval);
    }
  }
}
