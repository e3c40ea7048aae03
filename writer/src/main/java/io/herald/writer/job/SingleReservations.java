package io.herald.writer.job;

import io.herald.runtime.db.GroupCommit;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Reserves single publications ({@code POST /v1/publications}) with group commit: requests that
 * arrive while others are being committed are reserved together, in one {@link JobStore#reserve}
 * transaction, each answered as if it had been reserved alone (intents sharing a key within a group
 * are answered like separate requests). Under concurrent load the writer then commits once for many
 * intents, and the relay, Kafka and the consumer downstream see them as one transaction too; a lone
 * request never waits for company ({@link GroupCommit}).
 *
 * <p>An unavailable database fails the whole group with {@link StoreUnavailableException}, as it
 * would each request alone, and the requests queued behind it with it; any other failure reserves
 * the group's intents one by one, so one bad intent fails only its own request.
 *
 * <p>Thread-safe.
 */
public final class SingleReservations {

  /**
   * Validated by {@code WriterConfig}, where the keys are defined.
   *
   * @param maxIntents {@code writer.group-commit.max-intents}: most intents in one transaction; 1
   *     commits each request alone
   * @param maxInFlight {@code writer.group-commit.max-in-flight}: most group transactions at once
   */
  public record Settings(int maxIntents, int maxInFlight) {

    public Settings {
      if (maxIntents < 1 || maxInFlight < 1) {
        throw new IllegalArgumentException(
            "maxIntents and maxInFlight must be at least 1, were "
                + maxIntents
                + ", "
                + maxInFlight);
      }
    }
  }

  private final GroupCommit<PublicationIntent, Reservation, RuntimeException> groups;

  public SingleReservations(JobStore store, Settings settings, MeterRegistry registry) {
    Objects.requireNonNull(store, "store");
    DistributionSummary sizes =
        DistributionSummary.builder("herald_writer_group_commit_intents")
            .description("Intents per transaction of single POSTs (group commit)")
            .register(registry);
    this.groups =
        new GroupCommit<>(
            store::reserve,
            settings.maxIntents(),
            settings.maxInFlight(),
            failure -> !(failure instanceof StoreUnavailableException),
            // The requests queued behind a group that found the database unavailable answer 503
            // with it: each waits writer.db.connect-timeout once, not once per group ahead of it.
            failure -> failure instanceof StoreUnavailableException,
            sizes::record);
    Gauge.builder("herald_writer_group_commit_waiting", groups, GroupCommit::queued)
        .description("Single POSTs waiting for the next group transaction")
        .register(registry);
  }

  /**
   * Reserves one intent; returns once the transaction holding it has committed.
   *
   * @throws StoreUnavailableException the database is unreachable; nothing is known to be written
   */
  public Reservation reserve(PublicationIntent intent) {
    return groups.submit(intent);
  }
}
