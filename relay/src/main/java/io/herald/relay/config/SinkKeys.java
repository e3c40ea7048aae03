package io.herald.relay.config;

import io.herald.config.ConfigDef;
import io.herald.config.ConfigKey;
import io.herald.config.ConfigProblems;
import io.herald.config.ConfigType;
import io.herald.config.ConfigValues;
import io.herald.config.Durations;
import io.herald.config.Validator;
import io.herald.relay.sink.KafkaBatchSink;
import io.herald.relay.sink.SendRetry;
import java.time.Duration;

/**
 * The sink's keys under a prefix ({@code relay.sink}): {@code retry.initial-backoff}, {@code
 * retry.max-backoff}, {@code retry.give-up-after}, read into {@link SendRetry}, {@code
 * batches-in-flight}, read into {@link KafkaBatchSink.Pipelining}, and {@code linger}, the engine
 * hand-off's wait for a batch to fill. Immutable and thread-safe.
 */
public final class SinkKeys {

  private final ConfigKey<Duration> initialBackoff;
  private final ConfigKey<Duration> maxBackoff;
  private final ConfigKey<Duration> giveUpAfter;
  private final ConfigKey<Integer> batchesInFlight;
  private final ConfigKey<Duration> linger;

  private SinkKeys(ConfigDef.Builder def, String prefix) {
    initialBackoff =
        def.define(
            ConfigKey.optional(
                    prefix + ".retry.initial-backoff",
                    ConfigType.DURATION,
                    Duration.ofMillis(500),
                    "First wait before re-sending a batch Kafka failed with a retriable error (after the producer's own delivery.timeout.ms); doubles up to "
                        + prefix
                        + ".retry.max-backoff.")
                .validatedBy(Validator.atLeast(Duration.ofMillis(1))));
    maxBackoff =
        def.define(
            ConfigKey.optional(
                    prefix + ".retry.max-backoff",
                    ConfigType.DURATION,
                    Duration.ofSeconds(30),
                    "Longest wait between re-sends of a failed batch.")
                .validatedBy(Validator.atLeast(Duration.ofMillis(1))));
    giveUpAfter =
        def.define(
            ConfigKey.optional(
                    prefix + ".retry.give-up-after",
                    ConfigType.DURATION,
                    Duration.ofMinutes(10),
                    "How long a batch keeps being re-sent before the relay stops (exit 1, nothing committed past the unacknowledged record) so its supervisor or a standby takes over.")
                .validatedBy(Validator.atLeast(Duration.ofSeconds(1))));
    batchesInFlight =
        def.define(
            ConfigKey.optional(
                    prefix + ".batches-in-flight",
                    ConfigType.INT,
                    2,
                    "Full engine batches the sink may leave in its open Kafka transaction while the engine prepares the next (0 commits every batch first). Records are still marked for the offset commit only once their transaction commits; a crash may re-send up to this many more batches.")
                .validatedBy(Validator.between(0, 16)));
    linger =
        def.define(
            ConfigKey.optional(
                    prefix + ".linger",
                    ConfigType.DURATION,
                    Duration.ofMillis(2),
                    "While events keep coming, how long after the last batch the engine waits for the next to fill before handing it to the sink, which commits one Kafka transaction per batch that is not full: the events of a linger then share one transaction. Longer spends less relay and broker CPU per event (fewer transactions) for more latency from commit to Kafka. At 1,000 events/s beside Kafka Connect running the same connector (B2, each side warmed up; docs/benchmarks-history.md, \"The relay's linger at 2 ms\"): at 2ms a p99 of 0.35 of Connect's, the relay's CPU per event 0.81 of Connect's and the broker's 5.7 times what it spends under Connect; at 5ms 0.51, 0.53 and 2.7 times; at 0ms 0.22, 0.96 (compression off) and 9.9 times. On cores half as fast 0ms had the higher p99 (\"B2 on a slower host\"). The first event after a quiet spell and a batch that fills leave at once. 0ms hands every event over as it comes. Not applied with relay.engine.debezium-patches=false. At most 1s.")
                .validatedBy(Validator.within(Duration.ZERO, Duration.ofSeconds(1))));
  }

  /** Defines the keys under {@code prefix} in {@code def}. */
  public static SinkKeys define(ConfigDef.Builder def, String prefix) {
    return new SinkKeys(def, prefix);
  }

  /** Records the contradictions between these keys. */
  void validate(ConfigValues values, ConfigProblems problems) {
    Duration initial = values.get(initialBackoff);
    Duration max = values.get(maxBackoff);
    if (max.compareTo(initial) < 0) {
      problems.contradiction(
          values.fullName(maxBackoff),
          Durations.format(max),
          "is shorter than",
          values.fullName(initialBackoff),
          Durations.format(initial),
          null);
    }
  }

  /** The re-send policy read from {@code values}. */
  public SendRetry retry(ConfigValues values) {
    return new SendRetry(
        values.get(initialBackoff), values.get(maxBackoff), values.get(giveUpAfter));
  }

  /** The pipelining read from {@code values}, for the engine's {@code max.batch.size}. */
  public KafkaBatchSink.Pipelining pipelining(ConfigValues values, int fullBatchSize) {
    return new KafkaBatchSink.Pipelining(fullBatchSize, values.get(batchesInFlight));
  }

  public ConfigKey<Duration> giveUpAfter() {
    return giveUpAfter;
  }

  /** The hand-off's linger read from {@code values}. */
  public Duration linger(ConfigValues values) {
    return values.get(linger);
  }

  public ConfigKey<Integer> batchesInFlight() {
    return batchesInFlight;
  }
}
