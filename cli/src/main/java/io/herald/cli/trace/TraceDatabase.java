package io.herald.cli.trace;

import io.herald.cli.CliDatabase;
import io.herald.cli.CliFailure;
import io.herald.cli.trace.Trace.AttemptRow;
import io.herald.cli.trace.Trace.Delivery;
import io.herald.cli.trace.Trace.InboxRow;
import io.herald.cli.trace.Trace.Job;
import io.herald.cli.trace.Trace.OperatorActionRow;
import io.herald.common.event.PublicationKey;
import io.herald.consumer.inbox.Intake;
import io.herald.runtime.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rows {@code herald trace} reads, each by its key or index: the job in the writer's schema,
 * the inbox row, delivery, attempts and operator actions in the consumer's, over one short-lived
 * connection per schema with that process's own database settings (and role). Failures become
 * {@link CliFailure}: refused credentials (SQLState class 28) or an unknown database (3D000) exit
 * 2, anything else (no connection, a missing table) exits 3 with its SQLState. Not thread-safe: one
 * per command run.
 */
final class TraceDatabase implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TraceDatabase.class);

  private static final String JOB_COLUMNS =
      "id, tenant_id, article_id, revision_id, destination, idempotency_key, payload_hash,"
          + " created_at, updated_at, status, remote_id, status_occurred_at, status_event_id"
          + " FROM writer.publication_job";

  static final String JOB_BY_ID = "SELECT " + JOB_COLUMNS + " WHERE id = ?";

  /** {@code ux_publication_job_identity}. */
  static final String JOB_BY_KEY =
      "SELECT "
          + JOB_COLUMNS
          + " WHERE tenant_id = ? AND article_id = ? AND revision_id = ? AND destination = ?";

  /** {@code ux_delivery_identity}. */
  static final String DELIVERY =
      "SELECT id, message_id, state, attempts, claim_token, claim_owner, lease_until, remote_id,"
          + " last_error, uncertain_since, created_at, updated_at FROM consumer.delivery"
          + " WHERE tenant_id = ? AND article_id = ? AND revision_id = ? AND destination = ?";

  static final String INBOX =
      "SELECT message_id, handler, received_at FROM consumer.inbox"
          + " WHERE message_id = ? AND handler = ?";

  /** The primary key's leading column. */
  static final String ATTEMPTS =
      "SELECT attempt, claim_token, kind, claim_owner, started_at, ended_at, http_status, outcome,"
          + " recorded_state, remote_id, error, request_hash FROM consumer.delivery_attempt"
          + " WHERE delivery_id = ? ORDER BY claim_token";

  /** {@code ix_operator_action_delivery}. */
  static final String OPERATOR_ACTIONS =
      "SELECT id, action, actor, reason, remote_id, from_state, to_state, acted_at"
          + " FROM consumer.operator_action WHERE delivery_id = ? ORDER BY acted_at, id";

  static final String INTAKE_HANDLER = Intake.HANDLER;

  private final Connection writer;
  private final DatabaseConfig writerConfig;
  private final DatabaseConfig consumerConfig;
  private Connection consumer;

  private TraceDatabase(Connection writer, DatabaseConfig writerConfig, DatabaseConfig consumer) {
    this.writer = writer;
    this.writerConfig = writerConfig;
    this.consumerConfig = consumer;
  }

  /** Connects to the writer's database now, to the consumer's on first use. */
  static TraceDatabase open(DatabaseConfig writer, DatabaseConfig consumer) {
    return new TraceDatabase(connect(writer, "writer"), writer, consumer);
  }

  Optional<Job> job(Target target) {
    String sql = target.jobId() != null ? JOB_BY_ID : JOB_BY_KEY;
    try (PreparedStatement select = writer.prepareStatement(sql)) {
      if (target.jobId() != null) {
        select.setObject(1, target.jobId());
      } else {
        setKey(select, target.key());
      }
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Job(
                row.getObject(1, UUID.class),
                row.getString(2),
                row.getString(3),
                row.getString(4),
                row.getString(5),
                row.getString(6),
                row.getString(7),
                instant(row, 8),
                instant(row, 9),
                row.getString(10),
                row.getString(11),
                instant(row, 12),
                row.getObject(13, UUID.class)));
      }
    } catch (SQLException e) {
      throw failure(e, "read " + target + " from writer.publication_job", writerConfig);
    }
  }

  Optional<Delivery> delivery(Job job) {
    try (PreparedStatement select = consumer().prepareStatement(DELIVERY)) {
      setKey(
          select,
          new PublicationKey(job.tenant(), job.articleId(), job.revisionId(), job.destination()));
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Delivery(
                row.getObject(1, UUID.class),
                row.getObject(2, UUID.class),
                row.getString(3),
                row.getInt(4),
                row.getLong(5),
                row.getString(6),
                instant(row, 7),
                row.getString(8),
                row.getString(9),
                instant(row, 10),
                instant(row, 11),
                instant(row, 12)));
      }
    } catch (SQLException e) {
      throw failure(e, "read the delivery of job " + job.id(), consumerConfig);
    }
  }

  Optional<InboxRow> inbox(UUID messageId) {
    try (PreparedStatement select = consumer().prepareStatement(INBOX)) {
      select.setObject(1, messageId);
      select.setString(2, INTAKE_HANDLER);
      try (ResultSet row = select.executeQuery()) {
        return row.next()
            ? Optional.of(
                new InboxRow(row.getObject(1, UUID.class), row.getString(2), instant(row, 3)))
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw failure(e, "read the inbox row of event " + messageId, consumerConfig);
    }
  }

  List<AttemptRow> attempts(UUID deliveryId) {
    try (PreparedStatement select = consumer().prepareStatement(ATTEMPTS)) {
      select.setObject(1, deliveryId);
      List<AttemptRow> attempts = new ArrayList<>();
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          int status = row.getInt(7);
          Integer httpStatus = row.wasNull() ? null : status;
          attempts.add(
              new AttemptRow(
                  row.getInt(1),
                  row.getLong(2),
                  row.getString(3),
                  row.getString(4),
                  instant(row, 5),
                  instant(row, 6),
                  httpStatus,
                  row.getString(8),
                  row.getString(9),
                  row.getString(10),
                  row.getString(11),
                  row.getString(12)));
        }
      }
      return attempts;
    } catch (SQLException e) {
      throw failure(e, "read the attempts of delivery " + deliveryId, consumerConfig);
    }
  }

  List<OperatorActionRow> operatorActions(UUID deliveryId) {
    try (PreparedStatement select = consumer().prepareStatement(OPERATOR_ACTIONS)) {
      select.setObject(1, deliveryId);
      List<OperatorActionRow> actions = new ArrayList<>();
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          actions.add(
              new OperatorActionRow(
                  row.getObject(1, UUID.class),
                  row.getString(2),
                  row.getString(3),
                  row.getString(4),
                  row.getString(5),
                  row.getString(6),
                  row.getString(7),
                  instant(row, 8)));
        }
      }
      return actions;
    } catch (SQLException e) {
      throw failure(e, "read the operator actions of delivery " + deliveryId, consumerConfig);
    }
  }

  private Connection consumer() {
    if (consumer == null) {
      consumer = connect(consumerConfig, "consumer");
    }
    return consumer;
  }

  private static void setKey(PreparedStatement select, PublicationKey key) throws SQLException {
    select.setString(1, key.tenant());
    select.setString(2, key.articleId());
    select.setString(3, key.revisionId());
    select.setString(4, key.destination());
  }

  private static Connection connect(DatabaseConfig database, String process) {
    Connection connection =
        CliDatabase.open(
            database,
            "cannot connect to the " + process + "'s database",
            "the " + process + "'s",
            30);
    try {
      connection.setReadOnly(true);
      return connection;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw failure(e, "make the " + process + "'s connection read-only", database);
    }
  }

  static CliFailure failure(SQLException e, String doing, DatabaseConfig database) {
    return CliDatabase.failure(e, "cannot " + doing, database, "the");
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    Timestamp timestamp = row.getTimestamp(column);
    return timestamp == null ? null : timestamp.toInstant();
  }

  @Override
  public void close() {
    closeQuietly(writer);
    closeQuietly(consumer);
  }

  private static void closeQuietly(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      // A read-only session after its answer was read: nothing is lost, the server ends the
      // session itself; logged (standard error) so that it is not silent.
      log.warn("Closing a database connection failed", e);
    }
  }
}
