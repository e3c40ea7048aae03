package io.herald.relay.sink;

import java.time.Duration;

/**
 * How long the sink keeps re-sending a batch after Kafka failed it with a retriable error.
 *
 * <p>The producer already retries internally until {@code delivery.timeout.ms}; this policy covers
 * outages longer than that. Backoff doubles from {@code initialBackoff} up to {@code maxBackoff};
 * once {@code giveUpAfter} has passed since the first failure of the batch, the sink throws, the
 * engine stops without committing past the last acknowledged record, and the process exits so its
 * supervisor (or the standby) takes over. While it waits, the engine's bounded queue and the
 * producer's {@code buffer.memory} bound the heap.
 *
 * <p>Built from {@code relay.sink.retry.*}, which the relay's configuration validates (positive
 * durations, {@code maxBackoff} not shorter than {@code initialBackoff}).
 */
public record SendRetry(Duration initialBackoff, Duration maxBackoff, Duration giveUpAfter) {

  /** Backoff before retry number {@code attempt} (1-based). */
  Duration backoff(int attempt) {
    long millis = initialBackoff.toMillis();
    for (int i = 1; i < attempt && millis < maxBackoff.toMillis(); i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }
}
