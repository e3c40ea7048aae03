package io.herald.writer.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.runtime.db.SqlFailure;
import io.herald.runtime.db.Transactions;
import io.herald.writer.outbox.OutboxEvent;
import io.herald.writer.outbox.OutboxWriter;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Reserves publication jobs: one job per business key, decided by the unique index {@code
 * ux_publication_job_identity}, and for each new job its {@code PublicationRequested} outbox event
 * in the same transaction.
 *
 * <p>The race between two requests for one key is settled by PostgreSQL: {@code INSERT ... ON
 * CONFLICT DO NOTHING} inserts for exactly one of them (the loser waits for the winner's commit),
 * and the row count says which. The loser then reads the winner's row and compares payload hashes.
 *
 * <p>Thread-safe; every call uses its own pooled connection and transaction.
 */
public final class JobStore {

  static final String INITIAL_STATUS = "REQUESTED";

  /** Public so the benchmark's raw-JDBC baseline runs exactly this statement. */
  public static final String INSERT_JOB =
      """
      INSERT INTO writer.publication_job
        (id, tenant_id, article_id, revision_id, destination, idempotency_key, payload_hash, content,
         status, trace_parent, trace_state, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
      ON CONFLICT (tenant_id, article_id, revision_id, destination) DO NOTHING
      """;

  private static final String COLUMNS =
      "id, tenant_id, article_id, revision_id, destination, idempotency_key, payload_hash,"
          + " content::text, status, remote_id, trace_parent, trace_state, created_at, updated_at";

  static final String SELECT_BY_KEY =
      "SELECT "
          + COLUMNS
          + " FROM writer.publication_job"
          + " WHERE tenant_id = ? AND article_id = ? AND revision_id = ? AND destination = ?";

  /**
   * The tenant is part of the lookup so that another tenant's job is indistinguishable from none.
   */
  static final String SELECT_BY_ID =
      "SELECT " + COLUMNS + " FROM writer.publication_job WHERE id = ? AND tenant_id = ?";

  /** Deadlocks and serialization failures are answered by running the transaction again. */
  private static final int MAX_ATTEMPTS = 3;

  /**
   * Keys are inserted in this order within a transaction so that two batches sharing keys wait for
   * each other in the same order instead of deadlocking.
   */
  private static final Comparator<PublicationKey> KEY_ORDER =
      Comparator.comparing(PublicationKey::tenant)
          .thenComparing(PublicationKey::articleId)
          .thenComparing(PublicationKey::revisionId)
          .thenComparing(PublicationKey::destination);

  private final DataSource dataSource;
  private final OutboxWriter outbox;
  private final Supplier<UUID> ids;
  private final Clock clock;
  private final ObjectMapper mapper;

  public JobStore(
      DataSource dataSource,
      OutboxWriter outbox,
      Supplier<UUID> ids,
      Clock clock,
      ObjectMapper mapper) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.ids = Objects.requireNonNull(ids, "ids");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  /**
   * Reserves every intent in one transaction and answers one {@link Reservation} per intent, in the
   * order given. Intents sharing a key within the list are answered like separate requests: the
   * first creates the job, the others replay or conflict with it.
   *
   * @throws StoreUnavailableException the database is unreachable; nothing is known to be written
   */
  public List<Reservation> reserve(List<PublicationIntent> intents) {
    if (intents.isEmpty()) {
      return List.of();
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return reserveOnce(intents);
      } catch (SQLException e) {
        SqlFailure failure = SqlFailure.classify(e);
        String what =
            "reserving "
                + intents.size()
                + " publication job(s), first key "
                + intents.getFirst().key()
                + ", attempt "
                + attempt;
        if (failure == SqlFailure.UNAVAILABLE
            || (failure == SqlFailure.RETRY_TRANSACTION && attempt >= MAX_ATTEMPTS)) {
          throw new StoreUnavailableException(
              what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
        }
        if (failure == SqlFailure.PERMANENT) {
          throw new IllegalStateException(
              what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
        }
      }
    }
  }

  /**
   * The job with this id if it belongs to {@code tenant}.
   *
   * @throws StoreUnavailableException the database is unreachable
   */
  public Optional<PublicationJob> find(String tenant, UUID jobId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(SELECT_BY_ID)) {
      select.setObject(1, jobId);
      select.setString(2, tenant);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(readJob(rows)) : Optional.empty();
      }
    } catch (SQLException e) {
      String message =
          "loading publication job "
              + jobId
              + " of tenant "
              + tenant
              + " failed: "
              + e.getMessage();
      if (SqlFailure.classify(e) == SqlFailure.PERMANENT) {
        throw new IllegalStateException(message, e);
      }
      throw new StoreUnavailableException(message, e);
    }
  }

  private List<Reservation> reserveOnce(List<PublicationIntent> intents) throws SQLException {
    Integer[] order = new Integer[intents.size()];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, Comparator.comparing(i -> intents.get(i).key(), KEY_ORDER));
    // Microseconds: what timestamptz stores, so a created job equals the same job read back.
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);

    return Transactions.inTransaction(
        dataSource,
        connection -> {
          List<PublicationJob> candidates = new ArrayList<>(order.length);
          for (Integer i : order) {
            candidates.add(newJob(intents.get(i), now));
          }
          int[] inserted = insertJobs(connection, candidates);

          Reservation[] answers = new Reservation[intents.size()];
          List<OutboxEvent> events = new ArrayList<>();
          for (int k = 0; k < order.length; k++) {
            PublicationJob candidate = candidates.get(k);
            if (inserted[k] == 1) {
              answers[order[k]] = new Reservation.Created(candidate);
              events.add(PublicationEvents.requested(ids.get(), candidate));
            } else if (inserted[k] == 0) {
              answers[order[k]] = compareWithStored(connection, candidate);
            } else {
              throw new IllegalStateException(
                  "INSERT ... ON CONFLICT DO NOTHING reported "
                      + inserted[k]
                      + " rows for key "
                      + candidate.key()
                      + "; the JDBC URL must not set reWriteBatchedInserts=true");
            }
          }
          outbox.append(connection, events);
          return List.of(answers);
        });
  }

  private PublicationJob newJob(PublicationIntent intent, Instant now) {
    return new PublicationJob(
        ids.get(),
        intent.key(),
        intent.key().idempotencyKey(),
        intent.payloadHash(),
        intent.content(),
        INITIAL_STATUS,
        null,
        intent.trace().traceparent(),
        intent.trace().tracestate(),
        now,
        now);
  }

  private int[] insertJobs(Connection connection, List<PublicationJob> jobs) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(INSERT_JOB)) {
      for (PublicationJob job : jobs) {
        OffsetDateTime now = OffsetDateTime.ofInstant(job.createdAt(), ZoneOffset.UTC);
        insert.setObject(1, job.id());
        insert.setString(2, job.key().tenant());
        insert.setString(3, job.key().articleId());
        insert.setString(4, job.key().revisionId());
        insert.setString(5, job.key().destination());
        insert.setString(6, job.idempotencyKey());
        insert.setString(7, job.payloadHash());
        insert.setString(8, toJson(job.content()));
        insert.setString(9, job.status());
        insert.setString(10, job.traceParent());
        insert.setString(11, job.traceState());
        insert.setObject(12, now);
        insert.setObject(13, now);
        if (jobs.size() == 1) {
          // A single request: a plain execution, cheaper than the driver's batch machinery.
          return new int[] {insert.executeUpdate()};
        }
        insert.addBatch();
      }
      int[] counts = insert.executeBatch();
      for (int count : counts) {
        if (count == Statement.SUCCESS_NO_INFO) {
          throw new IllegalStateException(
              "the JDBC driver did not report row counts for INSERT ... ON CONFLICT DO NOTHING;"
                  + " the JDBC URL must not set reWriteBatchedInserts=true");
        }
      }
      return counts;
    }
  }

  /**
   * The key is taken: by a transaction that has committed (ON CONFLICT waited for it), or by an
   * earlier intent of this same transaction. Either way this statement sees it.
   */
  private Reservation compareWithStored(Connection connection, PublicationJob candidate)
      throws SQLException {
    PublicationJob stored =
        selectByKey(connection, candidate.key())
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "INSERT ... ON CONFLICT DO NOTHING inserted nothing for key "
                            + candidate.key()
                            + " but no job with that key is visible; were jobs deleted?"));
    return stored.payloadHash().equals(candidate.payloadHash())
        ? new Reservation.Replayed(stored)
        : new Reservation.Conflict(stored);
  }

  private Optional<PublicationJob> selectByKey(Connection connection, PublicationKey key)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(SELECT_BY_KEY)) {
      select.setString(1, key.tenant());
      select.setString(2, key.articleId());
      select.setString(3, key.revisionId());
      select.setString(4, key.destination());
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(readJob(rows)) : Optional.empty();
      }
    }
  }

  private PublicationJob readJob(ResultSet rows) throws SQLException {
    return new PublicationJob(
        rows.getObject(1, UUID.class),
        new PublicationKey(
            rows.getString(2), rows.getString(3), rows.getString(4), rows.getString(5)),
        rows.getString(6),
        rows.getString(7),
        parseContent(rows.getString(8)),
        rows.getString(9),
        rows.getString(10),
        rows.getString(11),
        rows.getString(12),
        rows.getObject(13, OffsetDateTime.class).toInstant(),
        rows.getObject(14, OffsetDateTime.class).toInstant());
  }

  private String toJson(JsonNode node) {
    try {
      return mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialise job content", e);
    }
  }

  private ObjectNode parseContent(String json) {
    try {
      if (mapper.readTree(json) instanceof ObjectNode content) {
        return content;
      }
      throw new IllegalStateException("stored job content is not a JSON object");
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("stored job content is not JSON", e);
    }
  }
}
