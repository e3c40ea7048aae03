package io.herald.writer.status;

import io.herald.common.id.UuidOrder;
import io.herald.runtime.db.FreshPlans;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Applies status events to {@code writer.publication_job}, deduplicated by {@code writer.inbox}.
 *
 * <p>One transaction per batch, three statements whatever its size: the inbox rows {@code (id,
 * handler)} of all its events in one {@code INSERT ... ON CONFLICT DO NOTHING RETURNING}, whose ids
 * are the new ones (an id twice in one batch is new only the first time); the jobs those new events
 * name, read and locked in one {@code SELECT ... FOR UPDATE} in id order (two batches sharing jobs
 * wait for each other instead of deadlocking); then, here, the events applied one by one in batch
 * order to what was read, each only if it is newer than what the job shows (see {@code
 * V5__job_status_view.sql}); and last each changed job's final state in one {@code UPDATE ... FROM
 * unnest(...)}. Because the rows are locked from the read to the commit, the outcome of every event
 * is what applying them one statement each would have given, and a job two events of one batch
 * change is written once. The inbox rows and the job changes commit or roll back together, so a
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

  /** The jobs the batch's new events name, locked until the commit, in one order for all. */
  static final String LOCK_JOBS =
      """
      SELECT id, tenant_id, status_occurred_at, status_event_id
        FROM writer.publication_job
       WHERE id = ANY(?::uuid[])
       ORDER BY id
         FOR UPDATE
      """;

  /**
   * Each changed job's final state. A remote id, once known, is kept when no applied event carried
   * one. Planned at every execution ({@link FreshPlans}): it joins the table through an array.
   */
  static final String WRITE_JOBS =
      """
      UPDATE writer.publication_job j
         SET status = u.status, remote_id = COALESCE(u.remote_id, j.remote_id),
             status_occurred_at = u.occurred_at, status_event_id = u.event_id, updated_at = ?
        FROM unnest(?::uuid[], ?::text[], ?::text[], ?::timestamptz[], ?::uuid[])
             AS u(id, status, remote_id, occurred_at, event_id)
       WHERE j.id = u.id
      """;

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
          OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
          Set<UUID> fresh = insertInbox(connection, events, now);
          Outcome[] outcomes = new Outcome[events.size()];
          List<StatusEvent> applicable = new ArrayList<>(fresh.size());
          for (int i = 0; i < outcomes.length; i++) {
            // remove: the second of one id in a batch is a redelivery, as it was row by row.
            if (fresh.remove(events.get(i).messageId())) {
              applicable.add(events.get(i));
            } else {
              outcomes[i] = Outcome.DUPLICATE;
            }
          }
          Map<UUID, ShownStatus> shown = lockJobs(connection, applicable);
          Map<UUID, ShownStatus> changed = new LinkedHashMap<>();
          for (int i = 0, k = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
              StatusEvent event = applicable.get(k++);
              ShownStatus job = shown.get(event.jobId());
              if (job == null || !job.tenant().equals(event.tenant())) {
                outcomes[i] = Outcome.UNKNOWN_JOB;
              } else if (job.isOlderThan(event)) {
                ShownStatus next = job.after(event);
                shown.put(event.jobId(), next);
                changed.put(event.jobId(), next);
                outcomes[i] = Outcome.APPLIED;
              } else {
                outcomes[i] = Outcome.STALE;
              }
            }
          }
          writeJobs(connection, changed, now);
          return List.of(outcomes);
        });
  }

  /** The batch's inbox rows; answers the ids that were not there yet. */
  private static Set<UUID> insertInbox(
      Connection connection, List<StatusEvent> events, OffsetDateTime now) throws SQLException {
    UUID[] ids = new UUID[events.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = events.get(i).messageId();
    }
    try (PreparedStatement inbox = connection.prepareStatement(INSERT_INBOX)) {
      inbox.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      inbox.setString(1, HANDLER);
      inbox.setObject(2, now);
      inbox.setArray(3, connection.createArrayOf("uuid", ids));
      Set<UUID> fresh = new HashSet<>();
      try (ResultSet rows = inbox.executeQuery()) {
        while (rows.next()) {
          fresh.add(rows.getObject(1, UUID.class));
        }
      }
      return fresh;
    }
  }

  /** What the jobs {@code events} name show now, by job id, locked until the commit. */
  private static Map<UUID, ShownStatus> lockJobs(Connection connection, List<StatusEvent> events)
      throws SQLException {
    Map<UUID, ShownStatus> shown = new HashMap<>();
    if (events.isEmpty()) {
      return shown;
    }
    Object[] jobIds = events.stream().map(StatusEvent::jobId).distinct().toArray();
    try (PreparedStatement lock = connection.prepareStatement(LOCK_JOBS)) {
      lock.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      lock.setArray(1, connection.createArrayOf("uuid", jobIds));
      try (ResultSet rows = lock.executeQuery()) {
        while (rows.next()) {
          OffsetDateTime occurredAt = rows.getObject(3, OffsetDateTime.class);
          shown.put(
              rows.getObject(1, UUID.class),
              new ShownStatus(
                  rows.getString(2),
                  occurredAt == null ? null : occurredAt.toInstant(),
                  rows.getObject(4, UUID.class),
                  null,
                  null));
        }
      }
    }
    return shown;
  }

  /** Each changed job's final state, in one statement. */
  private static void writeJobs(
      Connection connection, Map<UUID, ShownStatus> changed, OffsetDateTime now)
      throws SQLException {
    if (changed.isEmpty()) {
      return;
    }
    int size = changed.size();
    UUID[] ids = new UUID[size];
    String[] states = new String[size];
    String[] remoteIds = new String[size];
    OffsetDateTime[] occurredAts = new OffsetDateTime[size];
    UUID[] eventIds = new UUID[size];
    int i = 0;
    for (Map.Entry<UUID, ShownStatus> entry : changed.entrySet()) {
      ShownStatus job = entry.getValue();
      ids[i] = entry.getKey();
      states[i] = job.state();
      remoteIds[i] = job.remoteId();
      occurredAts[i] = OffsetDateTime.ofInstant(job.occurredAt(), ZoneOffset.UTC);
      eventIds[i] = job.eventId();
      i++;
    }
    try (PreparedStatement write = FreshPlans.prepare(connection, WRITE_JOBS)) {
      write.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      write.setObject(1, now);
      write.setArray(2, connection.createArrayOf("uuid", ids));
      write.setArray(3, connection.createArrayOf("text", states));
      write.setArray(4, connection.createArrayOf("text", remoteIds));
      write.setArray(5, connection.createArrayOf("timestamptz", occurredAts));
      write.setArray(6, connection.createArrayOf("uuid", eventIds));
      int updated = write.executeUpdate();
      if (updated != size) {
        throw new IllegalStateException(
            "updated " + updated + " of " + size + " locked publication jobs; were jobs deleted?");
      }
    }
  }

  /**
   * What a job shows, as far as applying events goes.
   *
   * @param occurredAt {@code status_occurred_at}; {@code null} until the first event
   * @param eventId {@code status_event_id}; {@code null} until the first event
   * @param state the state the batch's events set; {@code null} for a job as read
   * @param remoteId the last remote id the batch's applied events carried; {@code null} keeps the
   *     stored one
   */
  private record ShownStatus(
      String tenant, Instant occurredAt, UUID eventId, String state, String remoteId) {

    /**
     * Whether {@code event} is newer, as PostgreSQL orders the pair {@code (timestamptz, uuid)}.
     */
    boolean isOlderThan(StatusEvent event) {
      if (occurredAt == null) {
        return true;
      }
      int byTime = occurredAt.compareTo(event.occurredAt());
      if (byTime != 0) {
        return byTime < 0;
      }
      return UuidOrder.DATABASE.compare(eventId, event.messageId()) < 0;
    }

    /** The job once {@code event} is applied. */
    ShownStatus after(StatusEvent event) {
      // A conflict event names the refused job but carries the existing delivery's remote id.
      String carried = StatusDecoder.CONFLICT.equals(event.state()) ? null : event.remoteId();
      return new ShownStatus(
          tenant,
          event.occurredAt(),
          event.messageId(),
          event.state(),
          carried != null ? carried : remoteId);
    }
  }
}
