package io.herald.writer.status;

import io.herald.runtime.db.Transactions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Applies status events to {@code writer.publication_job}, deduplicated by {@code writer.inbox}.
 *
 * <p>One transaction per batch: the inbox rows {@code (id, handler)} of all its events are inserted
 * in one statement with {@code ON CONFLICT DO NOTHING}, which returns the ids that are new (an id
 * twice in one batch is new only the first time); only for a new one is the job updated, in order
 * and in one JDBC batch, and only if the event is newer than what the job shows (see {@code
 * V5__job_status_view.sql}). The inbox row and the job change commit or roll back together, so a
 * redelivered event is a no-op and a failed batch leaves nothing behind. Thread-safe; each call
 * uses its own connection.
 */
final class StatusStore {

  /** The inbox handler name of the status view. */
  static final String HANDLER = "writer-status";

  /** What one event did. */
  enum Outcome {
    /** The job now shows the event's state. */
    APPLIED("applied"),
    /** The event id is in the inbox already: a redelivery. */
    DUPLICATE("duplicate"),
    /** The job already shows a newer event; the event is recorded but changes nothing. */
    STALE("stale"),
    /**
     * No job with that id for that tenant in this database (another shard's job, or deleted);
     * recorded in the inbox and otherwise ignored.
     */
    UNKNOWN_JOB("unknown_job");

    final String tag;

    Outcome(String tag) {
      this.tag = tag;
    }
  }

  /** The batch's inbox rows in one statement; the ids it returns are the new ones. */
  static final String INSERT_INBOX =
      """
      INSERT INTO writer.inbox (message_id, handler, received_at)
      SELECT m.id, ?, ? FROM unnest(?::uuid[]) AS m(id)
      ON CONFLICT (message_id, handler) DO NOTHING
      RETURNING message_id
      """;

  /**
   * Moves the job forward only: the stored (occurred_at, event id) must be older than the event's.
   * A remote id, once known, is kept when a later event carries none.
   */
  static final String APPLY =
      """
      UPDATE writer.publication_job
         SET status = ?, remote_id = COALESCE(?, remote_id), status_occurred_at = ?,
             status_event_id = ?, updated_at = ?
       WHERE id = ? AND tenant_id = ?
         AND (status_occurred_at IS NULL OR (status_occurred_at, status_event_id) < (?, ?))
      """;

  static final String EXISTS =
      "SELECT 1 FROM writer.publication_job WHERE id = ? AND tenant_id = ?";

  private static final int STATEMENT_TIMEOUT_SECONDS = 30;

  private final DataSource dataSource;
  private final Clock clock;

  StatusStore(DataSource dataSource, Clock clock) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Applies {@code events} in order, in one transaction.
   *
   * @return one outcome per event, in the same order; valid only once this returns (committed)
   * @throws SQLException nothing was committed; the caller reads the batch again
   */
  List<Outcome> apply(List<StatusEvent> events) throws SQLException {
    if (events.isEmpty()) {
      return List.of();
    }
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          try (PreparedStatement inbox = connection.prepareStatement(INSERT_INBOX);
              PreparedStatement apply = connection.prepareStatement(APPLY);
              PreparedStatement exists = connection.prepareStatement(EXISTS)) {
            inbox.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
            apply.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
            exists.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
            OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
            UUID[] ids = new UUID[events.size()];
            for (int i = 0; i < ids.length; i++) {
              ids[i] = events.get(i).messageId();
            }
            inbox.setString(1, HANDLER);
            inbox.setObject(2, now);
            inbox.setArray(3, connection.createArrayOf("uuid", ids));
            Set<UUID> fresh = new HashSet<>();
            try (ResultSet rows = inbox.executeQuery()) {
              while (rows.next()) {
                fresh.add(rows.getObject(1, UUID.class));
              }
            }
            // remove: the second of one id in a batch is a redelivery, as it was row by row.
            List<StatusEvent> applied = new ArrayList<>(events.size());
            Outcome[] outcomes = new Outcome[events.size()];
            for (int i = 0; i < outcomes.length; i++) {
              StatusEvent event = events.get(i);
              if (fresh.remove(event.messageId())) {
                addUpdate(event, now, apply);
                applied.add(event);
              } else {
                outcomes[i] = Outcome.DUPLICATE;
              }
            }
            // One JDBC batch: the updates run in order (two events of one job stay ordered) and
            // travel in one round trip, where one statement per event cost one each.
            int[] counts = applied.isEmpty() ? new int[0] : apply.executeBatch();
            for (int i = 0, k = 0; i < outcomes.length; i++) {
              if (outcomes[i] == null) {
                outcomes[i] =
                    counts[k] == 1 ? Outcome.APPLIED : staleOrUnknown(applied.get(k), exists);
                k++;
              }
            }
            return List.of(outcomes);
          }
        });
  }

  /** The job update of an event whose inbox row is new, added to the batch. */
  private static void addUpdate(StatusEvent event, OffsetDateTime now, PreparedStatement apply)
      throws SQLException {
    OffsetDateTime occurredAt = OffsetDateTime.ofInstant(event.occurredAt(), ZoneOffset.UTC);
    apply.setString(1, event.state());
    // A conflict event names the refused job but carries the existing delivery's remote id.
    apply.setString(2, StatusDecoder.CONFLICT.equals(event.state()) ? null : event.remoteId());
    apply.setObject(3, occurredAt);
    apply.setObject(4, event.messageId());
    apply.setObject(5, now);
    apply.setObject(6, event.jobId());
    apply.setString(7, event.tenant());
    apply.setObject(8, occurredAt);
    apply.setObject(9, event.messageId());
    apply.addBatch();
  }

  /** Why an event's update changed no row: the job shows a newer event, or is not here. */
  private static Outcome staleOrUnknown(StatusEvent event, PreparedStatement exists)
      throws SQLException {
    exists.setObject(1, event.jobId());
    exists.setString(2, event.tenant());
    try (ResultSet rows = exists.executeQuery()) {
      return rows.next() ? Outcome.STALE : Outcome.UNKNOWN_JOB;
    }
  }
}
