package io.herald.writer.job;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Applies consumer status events to {@code writer.publication_job}, each exactly once: the event id
 * goes into {@code writer.inbox} in the same transaction as the update, so a redelivered event
 * changes nothing. Events of one job arrive in order (one Kafka key, one partition), so the last
 * applied is the latest state.
 *
 * <p>Thread-safe; each call uses its own pooled connection and transaction.
 */
public final class JobStatusStore {

  /** What applying one event did. */
  public enum Outcome {
    APPLIED,
    DUPLICATE,
    UNKNOWN_JOB
  }

  static final String HANDLER = "publication-status";

  static final String INSERT_INBOX =
      "INSERT INTO writer.inbox (message_id, handler) VALUES (?, ?) ON CONFLICT DO NOTHING";

  /** Keyed by tenant too: an event can only change a job of the tenant it names. */
  static final String UPDATE_JOB =
      """
      UPDATE writer.publication_job
         SET status = ?, remote_id = COALESCE(?, remote_id), updated_at = ?
       WHERE id = ? AND tenant_id = ?
      """;

  private final DataSource dataSource;

  public JobStatusStore(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * @throws StoreUnavailableException the database is unreachable; nothing was applied
   */
  public Outcome apply(UUID eventId, StatusUpdate update) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement inbox = connection.prepareStatement(INSERT_INBOX);
          PreparedStatement job = connection.prepareStatement(UPDATE_JOB)) {
        inbox.setObject(1, eventId);
        inbox.setString(2, HANDLER);
        if (inbox.executeUpdate() == 0) {
          connection.rollback();
          return Outcome.DUPLICATE;
        }
        job.setString(1, update.state());
        job.setString(2, update.remoteId());
        job.setObject(3, OffsetDateTime.ofInstant(update.occurredAt(), ZoneOffset.UTC));
        job.setObject(4, update.jobId());
        job.setString(5, update.tenant());
        int updated = job.executeUpdate();
        // The inbox row commits either way: an event for an unknown job is not worth a retry.
        connection.commit();
        return updated == 1 ? Outcome.APPLIED : Outcome.UNKNOWN_JOB;
      } catch (SQLException | RuntimeException e) {
        try {
          connection.rollback();
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      }
    } catch (SQLException e) {
      String message =
          "applying status event "
              + eventId
              + " ("
              + update.state()
              + " for job "
              + update.jobId()
              + ") failed: "
              + e.getMessage()
              + " (SQLState "
              + e.getSQLState()
              + ")";
      if (SqlFailure.classify(e) == SqlFailure.PERMANENT) {
        throw new IllegalStateException(message, e);
      }
      throw new StoreUnavailableException(message, e);
    }
  }
}
