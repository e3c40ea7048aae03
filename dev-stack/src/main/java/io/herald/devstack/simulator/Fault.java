package io.herald.devstack.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * A misbehaviour the simulator applies to the next article request, scripted by a test or by the
 * admin endpoint. Each fault is consumed by exactly one {@code POST /articles} request.
 */
public sealed interface Fault {

  /**
   * Creates the article (it exists from then on), then holds the response for {@code stall}: with a
   * stall longer than the client's timeout, the client sees a timeout although the article exists.
   */
  record StallAfterAccept(Duration stall) implements Fault {
    public StallAfterAccept {
      Objects.requireNonNull(stall, "stall");
      if (stall.isNegative()) {
        throw new IllegalArgumentException("stall must not be negative: " + stall);
      }
    }
  }

  /**
   * Holds the request for {@code stall} without creating anything, then answers 503: the client
   * times out and cannot know that nothing was created (a lookup can).
   */
  record StallWithoutAccepting(Duration stall) implements Fault {
    public StallWithoutAccepting {
      Objects.requireNonNull(stall, "stall");
      if (stall.isNegative()) {
        throw new IllegalArgumentException("stall must not be negative: " + stall);
      }
    }
  }

  /**
   * Answers {@code 503 Service Unavailable} with {@code Retry-After} before processing or accepting
   * anything: the request was explicitly not processed.
   */
  record RejectBeforeAccept(Duration retryAfter) implements Fault {
    public RejectBeforeAccept {
      Objects.requireNonNull(retryAfter, "retryAfter");
    }
  }

  /**
   * Answers {@code status} without creating an article ({@code 429}, {@code 500}, {@code 400}...).
   */
  record Status(int status) implements Fault {
    public Status {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException("status must be an error status (4xx/5xx): " + status);
      }
    }
  }

  /**
   * Creates the article, then runs {@code hook} before answering: tests use it to kill the caller
   * between the remote success and the caller recording it.
   */
  record OnAccept(Runnable hook) implements Fault {
    public OnAccept {
      Objects.requireNonNull(hook, "hook");
    }
  }

  /**
   * Answers {@code 429 Too Many Requests} with {@code Retry-After} (whole seconds) without creating
   * anything: the caller must not try again before then.
   */
  record RateLimited(Duration retryAfter) implements Fault {
    public RateLimited {
      Objects.requireNonNull(retryAfter, "retryAfter");
      if (retryAfter.isNegative()) {
        throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
      }
    }
  }

  /**
   * Creates the article, then answers 201 with a body that is not JSON: the article exists, but the
   * caller cannot read its id from the answer.
   */
  record MalformedAnswer() implements Fault {}

  /**
   * Creates the article, then answers 201 with a JSON body of about {@code bytes} bytes (padding,
   * then the id at the very end): a caller that reads the whole body into memory pays for it.
   */
  record HugeAnswer(long bytes) implements Fault {
    public HugeAnswer {
      if (bytes < 1) {
        throw new IllegalArgumentException("bytes must be positive: " + bytes);
      }
    }
  }

  /**
   * Creates the article, sends the status line and headers at once, then the body one byte every
   * {@code interval}: a caller whose timeout stops at the headers waits for as long as the drip.
   */
  record SlowDrip(Duration interval) implements Fault {
    public SlowDrip {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be positive: " + interval);
      }
    }
  }

  /**
   * Answers {@code status} (a 3xx) with a {@code Location} elsewhere, without creating anything. A
   * caller must not follow it: the article and the credentials would go to an address nobody
   * configured.
   */
  record Redirect(int status, String location) implements Fault {
    public Redirect {
      if (status < 300 || status > 399) {
        throw new IllegalArgumentException("status must be a redirect (3xx): " + status);
      }
      Objects.requireNonNull(location, "location");
    }
  }
}
