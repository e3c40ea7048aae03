package io.herald.consumer.dispatch;

import java.time.Duration;
import java.util.Objects;

/**
 * How the dispatcher claims and retries: the {@code consumer.dispatch.*} keys, each field named
 * after its key and validated by {@code ConsumerConfig} (ranges, and the lease outlasting every
 * destination call). Immutable.
 *
 * @param owner {@code owner}: this instance's claim owner name (host and process id by default)
 * @param poolSize {@code pool-size}: calls in flight over all destinations
 * @param lease {@code lease}: the longest a claim is this instance's, renewals included
 * @param heartbeatTimeout {@code heartbeat-timeout}: how long a claim row is leased at a time (at
 *     most {@code lease}); renewed every third of it while the call is in flight, so the claims of
 *     a dead instance expire this long after its last renewal
 * @param maxAttempts {@code max-attempts}: attempts before a retriable failure becomes final
 * @param backoffBase {@code backoff-base}: the wait before the second attempt, doubled per attempt
 * @param backoffMax {@code backoff-max}: the longest wait between attempts
 * @param pollInterval {@code poll-interval}: how soon a destination whose last claim came back
 *     short claims again unless woken
 * @param shutdownGrace {@code shutdown-grace}: how long a graceful stop waits for in-flight calls
 *     to be recorded
 * @param recordBatchSize {@code record-batch-size}: the most call results one transaction records
 *     (those that ended while the previous one was being recorded); 1 records each on its own
 */
public record DispatchSettings(
    String owner,
    int poolSize,
    Duration lease,
    Duration heartbeatTimeout,
    int maxAttempts,
    Duration backoffBase,
    Duration backoffMax,
    Duration pollInterval,
    Duration shutdownGrace,
    int recordBatchSize) {

  /** The default of {@code record-batch-size}. */
  public static final int DEFAULT_RECORD_BATCH_SIZE = 64;

  public DispatchSettings {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
    Objects.requireNonNull(backoffBase, "backoffBase");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(shutdownGrace, "shutdownGrace");
    if (recordBatchSize < 1) {
      throw new IllegalArgumentException("recordBatchSize must be at least 1: " + recordBatchSize);
    }
  }
}
