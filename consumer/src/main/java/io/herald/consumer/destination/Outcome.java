package io.herald.consumer.destination;

import java.time.Duration;
import java.util.Objects;

/**
 * What one publish call established. Produced only by {@link OutcomeClassifier}, the one place that
 * decides what a response or a failure means. Every outcome carries the HTTP status the destination
 * answered, or null when no answer came (for the attempt history, {@code
 * consumer.delivery_attempt}); the constructors without it are for outcomes without an answer.
 */
public sealed interface Outcome {

  /** A short label for metrics and logs. */
  String label();

  /** The destination's HTTP status, or null when no answer came (timeout, not sent). */
  Integer httpStatus();

  /** Why, for every outcome but a plain success (null then). */
  String reason();

  /** The destination has the article. */
  record Published(String remoteId, Integer httpStatus) implements Outcome {
    public Published {
      Objects.requireNonNull(remoteId, "remoteId");
    }

    public Published(String remoteId) {
      this(remoteId, null);
    }

    @Override
    public String label() {
      return "published";
    }

    @Override
    public String reason() {
      return null;
    }
  }

  /**
   * The request was definitely not processed (never sent, or explicitly refused as "try later"):
   * retrying cannot duplicate anything.
   *
   * @param retryAfter the destination's {@code Retry-After}, or null
   */
  record Retry(String reason, Duration retryAfter, Integer httpStatus) implements Outcome {
    public Retry(String reason, Duration retryAfter) {
      this(reason, retryAfter, null);
    }

    @Override
    public String label() {
      return "retry";
    }
  }

  /** The destination rejected the article for good (validation, authorisation). */
  record Permanent(String reason, Integer httpStatus) implements Outcome {
    public Permanent(String reason) {
      this(reason, null);
    }

    @Override
    public String label() {
      return "permanent";
    }
  }

  /** The request may have taken effect (timeout or broken connection after sending, 5xx). */
  record Uncertain(String reason, Integer httpStatus) implements Outcome {
    public Uncertain(String reason) {
      this(reason, null);
    }

    @Override
    public String label() {
      return "uncertain";
    }
  }

  /**
   * The destination answered an error it saved for this key and replays to every repeat (the
   * profile's {@code errors-replayed}, recognised by its replay marker): sending again with the key
   * cannot change the answer, and whether the first request took effect is unknown.
   */
  record ReplayedError(String reason, Integer httpStatus) implements Outcome {
    @Override
    public String label() {
      return "replayed-error";
    }
  }
}
