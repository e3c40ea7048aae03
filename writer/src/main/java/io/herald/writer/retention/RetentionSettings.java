package io.herald.writer.retention;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What the writer purges, built and validated by {@code WriterConfig}. Immutable.
 *
 * @param outbox {@code writer.outbox.*}; present only with {@code writer.outbox.retention=keep}
 *     (the default deletes each row in its own transaction, so nothing needs purging)
 * @param inbox the status view's {@code writer.status.inbox-*}; present only with {@code
 *     writer.status.enabled}
 */
public record RetentionSettings(Optional<Purge> outbox, Optional<Purge> inbox) {

  public RetentionSettings {
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(inbox, "inbox");
  }

  /**
   * The purge of one table.
   *
   * @param retention rows older than this are deleted: {@code writer.outbox.keep-days} (in days) or
   *     {@code writer.status.inbox-retention}
   * @param purgeInterval pause between runs: {@code writer.outbox.purge-interval} or {@code
   *     writer.status.inbox-purge-interval}
   * @param purgeBatchSize rows per statement: {@code writer.outbox.purge-batch-size} or {@code
   *     writer.status.inbox-purge-batch-size}
   * @param purgeMaxBatches statements per run: {@code writer.outbox.purge-max-batches}; 100 for the
   *     inbox (not a setting)
   */
  public record Purge(
      Duration retention, Duration purgeInterval, int purgeBatchSize, int purgeMaxBatches) {

    public Purge {
      Objects.requireNonNull(retention, "retention");
      Objects.requireNonNull(purgeInterval, "purgeInterval");
    }
  }
}
