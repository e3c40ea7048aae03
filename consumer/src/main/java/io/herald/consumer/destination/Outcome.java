package io.herald.consumer.destination;

import java.time.Duration;
import java.util.Objects;

/**
 * What one publish call established. Produced only by {@link OutcomeClassifier}, the one place that
 * decides what a response or a failure means.
 */
public sealed interface Outcome {

  /** A short label for metrics and logs. */
  String label();

  /** The destination has the article. */
  record Published(String remoteId) implements Outcome {
    public Published {
      Objects.requireNonNull(remoteId, "remoteId");
    }

    @Override
    public String label() {
      return "published";
    }
  }

  /**
   * The request was definitely not processed (never sent, or explicitly refused as "try later"):
   * retrying cannot duplicate anything.
   *
   * @param retryAfter the destination's {@code Retry-After}, or null
   */
  record Retry(String reason, Duration retryAfter) implements Outcome {
    @Override
    public String label() {
      return "retry";
    }
  }

  /** The destination rejected the article for good (validation, authorisation). */
  record Permanent(String reason) implements Outcome {
    @Override
    public String label() {
      return "permanent";
    }
  }

  /** The request may have taken effect (timeout or broken connection after sending, 5xx). */
  record Uncertain(String reason) implements Outcome {
    @Override
    public String label() {
      return "uncertain";
    }
  }
}
