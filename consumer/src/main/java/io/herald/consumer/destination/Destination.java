package io.herald.consumer.destination;

import io.herald.consumer.delivery.ClaimedDelivery;

/**
 * One destination publishing API as the dispatcher and the reconciler see it. {@link
 * DestinationClient} speaks HTTP; tests use hand-written fakes.
 *
 * <p>Implementations are thread-safe and never throw for a remote failure: every answer, or its
 * absence, is an {@link Outcome} or a {@link LookupResult}.
 */
public interface Destination extends AutoCloseable {

  DestinationConfig config();

  /**
   * Publishes the claimed delivery's article. Blocks for at most connect-timeout + read-timeout.
   */
  Outcome publish(ClaimedDelivery delivery);

  /**
   * SHA-256 (64 lower-case hex digits) of the request body {@link #publish} sends for {@code
   * delivery}, recorded with its attempt; null when unknown (fakes send nothing).
   */
  default String requestHash(ClaimedDelivery delivery) {
    return null;
  }

  /**
   * Waits for this destination's rate limit ({@code rate-limit}) to allow one more request; called
   * before {@link #publish} and {@link #lookUp}. Returns at once without a limit.
   *
   * @throws InterruptedException nothing was sent
   */
  default void awaitTurn() throws InterruptedException {}

  /** Asks whether an article carries the claimed delivery's idempotency key. */
  LookupResult lookUp(ClaimedDelivery delivery);

  @Override
  void close();
}
