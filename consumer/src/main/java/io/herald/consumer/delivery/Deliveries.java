package io.herald.consumer.delivery;

import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.runtime.db.FreshPlans;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The delivery table as a queue: intake inserts, claims, and the recording of transitions the
 * delivery policy decided ({@code io.herald.consumer.policy.DeliveryPolicy}); the operators' read
 * side is {@link DeliveryViews}. Every transition is one SQL statement guarded by the expected
 * state (and, for claim holders, the fencing token), and writes its status event in the same
 * transaction. Races between consumer instances are settled by row locks, {@code SKIP LOCKED} and
 * row counts, never by anything in this process.
 *
 * <p>Times (leases, due times) are the database's {@code now()}: one clock for every instance.
 *
 * <p>Thread-safe: stateless apart from the pool.
 */
public final class Deliveries implements DeliveryQueue {

  private static final String SNAPSHOT_COLUMNS =
      "d.id, d.job_id, d.tenant_id, d.article_id, d.revision_id, d.destination, d.state,"
          + " d.remote_id, d.attempts, d.trace_parent, d.trace_state";

  private static final String CLAIM_COLUMNS =
      "d.id, d.job_id, d.tenant_id, d.article_id, d.revision_id, d.destination,"
          + " d.idempotency_key, d.content::text AS content, d.claim_token, d.attempts,"
          + " d.trace_parent, d.trace_state, d.uncertain_since, d.state,"
          + " floor(extract(epoch FROM now() - COALESCE(d.first_attempt_at, d.created_at))"
          + " * 1000)::bigint AS since_first_attempt_ms";

  /**
   * New deliveries in one statement, in the order given: {@code seq} (the commit order guarantee 5
   * follows) is drawn row by row in that order; a business key already known inserts nothing.
   */
  private static final String INSERT_ALL =
      """
      INSERT INTO consumer.delivery AS d
        (id, job_id, message_id, tenant_id, article_id, revision_id, destination, idempotency_key,
         payload_hash, content, trace_parent, trace_state, state, last_error)
      SELECT n.id, n.job_id, n.message_id, n.tenant_id, n.article_id, n.revision_id, n.destination,
             n.idempotency_key, n.payload_hash, n.content::jsonb, n.trace_parent, n.trace_state,
             n.state, n.last_error
        FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[],
                    ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
             WITH ORDINALITY
             AS n(id, job_id, message_id, tenant_id, article_id, revision_id, destination,
                  idempotency_key, payload_hash, content, trace_parent, trace_state, state,
                  last_error, position)
       ORDER BY n.position
      ON CONFLICT (tenant_id, article_id, revision_id, destination) DO NOTHING
      RETURNING\s"""
          + SNAPSHOT_COLUMNS;

  private static final String SELECT_BY_KEY =
      "SELECT "
          + SNAPSHOT_COLUMNS
          + ", d.payload_hash FROM consumer.delivery d"
          + " WHERE d.tenant_id = ? AND d.article_id = ? AND d.revision_id = ? AND d.destination = ?";

  // The claim, lease and reconciliation statements name their states as literals, as the partial
  // indexes they use do (V1__inbox_delivery_outbox.sql); DeliveriesStatementsTest checks those
  // literals against the delivery policy, the one definition of which state follows which.

  /**
   * Claims due work of one destination. An earlier delivery (lower {@code seq}) of the same article
   * and destination that is not final holds back the later ones (guarantee 5); rows locked by
   * another instance's claim are skipped, never waited for.
   */
  static final String CLAIM_DUE =
      """
      WITH due AS (
        SELECT d.id
          FROM consumer.delivery d
         WHERE d.destination = ?
           AND d.state IN ('PENDING', 'RETRY_WAIT')
           AND d.next_attempt_at <= now()
           -- Oldest open delivery of its article and destination (it is open itself). A
           -- correlated scalar subquery, not NOT EXISTS: the planner cannot turn it into an
           -- anti-join, so every candidate costs one probe of ix_delivery_open_per_article on all
           -- three keys, whatever the table statistics say (a fresh burst has none).
           AND d.seq = (
                 SELECT min(e.seq) FROM consumer.delivery e
                  WHERE e.tenant_id = d.tenant_id
                    AND e.article_id = d.article_id
                    AND e.destination = d.destination
                    AND e.state NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED'))
         ORDER BY d.next_attempt_at, d.seq
         LIMIT ?
         FOR UPDATE OF d SKIP LOCKED)
      UPDATE consumer.delivery d
         SET state = 'DISPATCHING',
             claim_owner = ?,
             claim_token = d.claim_token + 1,
             lease_until = now() + ? * interval '1 millisecond',
             attempts = d.attempts + 1,
             -- The start of the destination's dedup window for this delivery's key (V9).
             first_attempt_at = COALESCE(d.first_attempt_at, now()),
             updated_at = now()
        FROM due
       WHERE d.id = due.id
      RETURNING\s"""
          + CLAIM_COLUMNS;

  /**
   * Records claim holders' results, each only while its token is current (fencing), in one
   * statement: one array per column, one element per result, each guarded by its own token and
   * state, so a fenced one matches no row and the others are recorded. {@code claim_token} comes
   * back to tell two claims of one delivery apart (an old holder's late result beside the current
   * holder's). {@code released_later}: the delivery became final while a later one of its article
   * and destination is open (one probe of {@code ix_delivery_open_per_article}); the row's own old
   * version, still open in the statement's snapshot, is not later than itself.
   *
   * <p>The rows are locked in id order first ({@code locked}), as {@link #RENEW_LEASES} locks them:
   * the lease keeper renews the same instance's calls in flight, several at once, and two
   * statements that lock an overlapping set of rows in different orders (each in its array's order)
   * deadlock, which PostgreSQL breaks only after {@code deadlock_timeout} (1 s), stalling every
   * result meanwhile (B5 at 1,000 publications/s).
   */
  private static final String COMPLETE_ALL =
      """
      WITH c AS (
        SELECT * FROM unnest(?::uuid[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[],
                             ?::bigint[], ?::boolean[])
                   AS c(id, token, expected, state, remote_id, last_error, retry_ms,
                        restarts_window)),
      locked AS (
        SELECT d.id, d.claim_token FROM consumer.delivery d
          JOIN c ON d.id = c.id AND d.claim_token = c.token AND d.state = c.expected
         ORDER BY d.id
           FOR UPDATE OF d)
      UPDATE consumer.delivery d
         SET state = c.state,
             remote_id = COALESCE(c.remote_id, d.remote_id),
             last_error = c.last_error,
             next_attempt_at = now() + c.retry_ms * interval '1 millisecond',
             uncertain_since = CASE WHEN c.state = 'UNCERTAIN' AND d.state <> 'UNCERTAIN'
                                    THEN now() ELSE d.uncertain_since END,
             first_attempt_at = CASE WHEN c.restarts_window THEN NULL ELSE d.first_attempt_at END,
             claim_owner = NULL,
             lease_until = NULL,
             updated_at = now()
        FROM c JOIN locked ON locked.id = c.id AND locked.claim_token = c.token
       WHERE d.id = c.id AND d.claim_token = c.token AND d.state = c.expected
      RETURNING d.claim_token,
                c.state IN ('PUBLISHED', 'FAILED', 'ABANDONED') AND EXISTS (
                  SELECT 1 FROM consumer.delivery e
                   WHERE e.tenant_id = d.tenant_id
                     AND e.article_id = d.article_id
                     AND e.destination = d.destination
                     AND e.seq > d.seq
                     AND e.state NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED')) AS released_later,
               \s"""
          + SNAPSHOT_COLUMNS;

  /**
   * The calls behind claim holders' results, recorded beside them whether or not the fence let a
   * result through (V7__delivery_attempt.sql), in one statement. Database time, like the lease: a
   * call ended when this transaction began, and started {@code took} before.
   */
  private static final String INSERT_ATTEMPTS =
      """
      INSERT INTO consumer.delivery_attempt
        (delivery_id, claim_token, attempt, kind, claim_owner, started_at, ended_at, http_status,
         outcome, recorded_state, remote_id, error, request_hash)
      SELECT a.delivery_id, a.claim_token, a.attempt, a.kind, a.claim_owner,
             now() - a.took_us * interval '1 microsecond', now(), a.http_status, a.outcome,
             a.recorded_state, a.remote_id, a.error, a.request_hash
        FROM unnest(?::uuid[], ?::bigint[], ?::integer[], ?::text[], ?::text[], ?::bigint[],
                    ?::integer[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
             AS a(delivery_id, claim_token, attempt, kind, claim_owner, took_us, http_status,
                  outcome, recorded_state, remote_id, error, request_hash)
      """;

  /**
   * A claim holder's heartbeat: extends the leases of its calls still in flight, each only while
   * its token is current and its lease has not ended (fencing: an expired claim may already be
   * reconciled as uncertain by another instance, so it is never revived). Touches neither the state
   * nor {@code updated_at}: a renewal is not a transition. Locks its rows in id order, as {@link
   * #COMPLETE_ALL} does (why: there); a row whose claim ended while this waited for its lock is
   * checked again under the lock and left out.
   */
  static final String RENEW_LEASES =
      """
      WITH held AS (
        SELECT d.id FROM consumer.delivery d
          JOIN unnest(?::uuid[], ?::bigint[]) AS h(id, token)
            ON d.id = h.id AND d.claim_token = h.token
         WHERE d.claim_owner = ?
           AND d.state = 'DISPATCHING'
           AND d.lease_until >= now()
         ORDER BY d.id
           FOR UPDATE OF d)
      UPDATE consumer.delivery d
         SET lease_until = now() + ? * interval '1 millisecond'
        FROM held
       WHERE d.id = held.id
      RETURNING d.id
      """;

  /**
   * A dispatcher that held a lease past its end may have sent the request: its delivery becomes
   * UNCERTAIN (never PENDING), and the token moves on so its late result is refused.
   */
  static final String EXPIRE_LEASES =
      """
      WITH expired AS (
        SELECT d.id FROM consumer.delivery d
         WHERE d.state = 'DISPATCHING' AND d.lease_until < now()
         ORDER BY d.lease_until
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
      UPDATE consumer.delivery d
         SET state = 'UNCERTAIN',
             claim_token = d.claim_token + 1,
             last_error = 'claim of ' || d.claim_owner || ' expired at ' || d.lease_until
                          || ' before a result was recorded; the request may have been sent',
             claim_owner = NULL,
             lease_until = NULL,
             uncertain_since = now(),
             next_attempt_at = now(),
             updated_at = now()
        FROM expired
       WHERE d.id = expired.id
      RETURNING\s"""
          + SNAPSHOT_COLUMNS;

  /** Moves unclaimed UNCERTAIN deliveries of one destination to a decided state. */
  static final String SETTLE_UNCERTAIN =
      """
      WITH picked AS (
        SELECT d.id FROM consumer.delivery d
         WHERE d.state = 'UNCERTAIN' AND d.destination = ?
           AND (d.lease_until IS NULL OR d.lease_until < now())
           AND d.attempts >= ? AND d.attempts < ?
           -- The rule's bounds on the age of the first attempt (null: none), the dedup window.
           AND (?::bigint IS NULL OR COALESCE(d.first_attempt_at, d.created_at)
                                     > now() - ?::bigint * interval '1 millisecond')
           AND (?::bigint IS NULL OR COALESCE(d.first_attempt_at, d.created_at)
                                     <= now() - ?::bigint * interval '1 millisecond')
         ORDER BY d.uncertain_since
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
      UPDATE consumer.delivery d
         SET state = ?,
             claim_token = d.claim_token + 1,
             claim_owner = NULL,
             lease_until = NULL,
             last_error = ?,
             next_attempt_at = now(),
             updated_at = now()
        FROM picked
       WHERE d.id = picked.id
      RETURNING\s"""
          + SNAPSHOT_COLUMNS;

  /** Leases UNCERTAIN deliveries whose grace period has passed, for a lookup at the destination. */
  static final String CLAIM_UNCERTAIN =
      """
      WITH picked AS (
        SELECT d.id FROM consumer.delivery d
         WHERE d.state = 'UNCERTAIN' AND d.destination = ?
           AND (d.lease_until IS NULL OR d.lease_until < now())
           AND d.uncertain_since <= now() - ? * interval '1 millisecond'
           AND d.next_attempt_at <= now()
         ORDER BY d.uncertain_since
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
      UPDATE consumer.delivery d
         SET claim_owner = ?,
             claim_token = d.claim_token + 1,
             lease_until = now() + ? * interval '1 millisecond',
             updated_at = now()
        FROM picked
       WHERE d.id = picked.id
      RETURNING\s"""
          + CLAIM_COLUMNS;

  private static final String LOCK_BY_ID =
      "SELECT d.state, d.destination FROM consumer.delivery d WHERE d.id = ? FOR UPDATE";

  private static final String OPERATOR_UPDATE =
      """
      UPDATE consumer.delivery d
         SET state = ?,
             remote_id = COALESCE(?, d.remote_id),
             last_error = ?,
             attempts = CASE WHEN ? THEN 0 ELSE d.attempts END,
             first_attempt_at = CASE WHEN ? THEN NULL ELSE d.first_attempt_at END,
             claim_token = d.claim_token + 1,
             claim_owner = NULL,
             lease_until = NULL,
             next_attempt_at = now(),
             updated_at = now()
       WHERE d.id = ? AND d.state = ?
      RETURNING\s"""
          + SNAPSHOT_COLUMNS;

  /** Read through the open deliveries' partial index (ix_delivery_open_per_article): few rows. */
  static final String COUNT_OPEN_BY_STATE =
      """
      SELECT d.state, count(*) FROM consumer.delivery d
       WHERE d.state NOT IN ('PUBLISHED', 'FAILED', 'ABANDONED')
       GROUP BY d.state
      """;

  /** The bulk of the table (kept for {@code consumer.delivery.retention}): a scan of it. */
  static final String COUNT_FINISHED_BY_STATE =
      """
      SELECT d.state, count(*) FROM consumer.delivery d
       WHERE d.state IN ('PUBLISHED', 'FAILED', 'ABANDONED')
       GROUP BY d.state
      """;

  /** Served by ix_delivery_uncertain (the reconciler's partial index), whatever the table size. */
  private static final String OLDEST_UNSETTLED =
      """
      SELECT d.state, floor(extract(epoch FROM now() - min(d.uncertain_since)))::bigint
        FROM consumer.delivery d
       WHERE d.state IN ('UNCERTAIN', 'NEEDS_RECONCILIATION') AND d.uncertain_since IS NOT NULL
       GROUP BY d.state
      """;

  /**
   * The uncertainty budget per destination: few rows (only unsettled deliveries), read through
   * ix_delivery_uncertain's partial index.
   */
  private static final String UNSETTLED_BY_DESTINATION =
      """
      SELECT d.destination, d.state, count(*),
             floor(extract(epoch FROM now() - min(COALESCE(d.first_attempt_at, d.created_at))))::bigint
        FROM consumer.delivery d
       WHERE d.state IN ('UNCERTAIN', 'NEEDS_RECONCILIATION') AND d.uncertain_since IS NOT NULL
       GROUP BY d.destination, d.state
      """;

  private final DataSource dataSource;
  private final StatusEvents events;

  public Deliveries(DataSource dataSource, StatusEvents events) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.events = Objects.requireNonNull(events, "events");
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public StatusEvents events() {
    return events;
  }

  /**
   * Creates the deliveries for received events on the caller's transaction, in one statement for
   * all the new ones, or reports the existing ones: {@code initial.get(i)} is the starting
   * transition of {@code deliveries.get(i)} (the policy's {@code received}: PENDING or
   * UNKNOWN_DESTINATION), with its status event in the same transaction when it is announced.
   * Concurrent inserts of one business key are settled by {@code ux_delivery_identity}: the loser's
   * {@code ON CONFLICT DO NOTHING} waits for the winner and then inserts nothing. A business key
   * that is already known (also one given twice here: the later is reported against the earlier) is
   * looked up and reported as before.
   *
   * @return per delivery, in order, what inserting it did
   */
  public List<IntakeResult> insertAll(
      Connection connection, List<NewDelivery> deliveries, List<Transition> initial)
      throws SQLException {
    int n = deliveries.size();
    if (initial.size() != n) {
      throw new IllegalArgumentException(
          n + " deliveries but " + initial.size() + " initial transitions");
    }
    if (n == 0) {
      return List.of();
    }
    UUID[] id = new UUID[n];
    UUID[] jobId = new UUID[n];
    UUID[] messageId = new UUID[n];
    String[] tenant = new String[n];
    String[] articleId = new String[n];
    String[] revisionId = new String[n];
    String[] destination = new String[n];
    String[] idempotencyKey = new String[n];
    String[] payloadHash = new String[n];
    String[] content = new String[n];
    String[] traceParent = new String[n];
    String[] traceState = new String[n];
    String[] state = new String[n];
    String[] lastError = new String[n];
    for (int i = 0; i < n; i++) {
      NewDelivery delivery = deliveries.get(i);
      Transition start = initial.get(i);
      if (start.to() != DeliveryState.PENDING && start.to() != DeliveryState.UNKNOWN_DESTINATION) {
        throw new IllegalArgumentException("A delivery starts PENDING or UNKNOWN_DESTINATION");
      }
      PublicationRequested request = delivery.request();
      PublicationKey key = request.key();
      id[i] = delivery.id();
      jobId[i] = request.jobId();
      messageId[i] = delivery.messageId();
      tenant[i] = key.tenant();
      articleId[i] = key.articleId();
      revisionId[i] = key.revisionId();
      destination[i] = key.destination();
      idempotencyKey[i] = request.idempotencyKey();
      payloadHash[i] = request.payloadHash();
      content[i] = request.content().toString();
      traceParent[i] = delivery.traceParent();
      traceState[i] = delivery.traceState();
      state[i] = start.to().name();
      lastError[i] = start.reason();
    }
    Map<UUID, DeliverySnapshot> created = new HashMap<>();
    try (PreparedStatement insert = connection.prepareStatement(INSERT_ALL)) {
      insert.setArray(1, connection.createArrayOf("uuid", id));
      insert.setArray(2, connection.createArrayOf("uuid", jobId));
      insert.setArray(3, connection.createArrayOf("uuid", messageId));
      insert.setArray(4, connection.createArrayOf("text", tenant));
      insert.setArray(5, connection.createArrayOf("text", articleId));
      insert.setArray(6, connection.createArrayOf("text", revisionId));
      insert.setArray(7, connection.createArrayOf("text", destination));
      insert.setArray(8, connection.createArrayOf("text", idempotencyKey));
      insert.setArray(9, connection.createArrayOf("text", payloadHash));
      insert.setArray(10, connection.createArrayOf("text", content));
      insert.setArray(11, connection.createArrayOf("text", traceParent));
      insert.setArray(12, connection.createArrayOf("text", traceState));
      insert.setArray(13, connection.createArrayOf("text", state));
      insert.setArray(14, connection.createArrayOf("text", lastError));
      try (ResultSet rows = insert.executeQuery()) {
        while (rows.next()) {
          DeliverySnapshot snapshot = snapshot(rows);
          created.put(snapshot.deliveryId(), snapshot);
        }
      }
    }
    List<IntakeResult> results = new ArrayList<>(n);
    List<StatusEvents.Announcement> announced = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      DeliverySnapshot snapshot = created.get(id[i]);
      if (snapshot != null) {
        if (initial.get(i).announced()) {
          announced.add(new StatusEvents.Announcement(snapshot, initial.get(i).reason()));
        }
        results.add(new IntakeResult.Created(snapshot));
      } else {
        results.add(existing(connection, deliveries.get(i).request()));
      }
    }
    events.appendAll(connection, announced);
    return results;
  }

  /** The delivery that already holds {@code request}'s business key: a duplicate or a conflict. */
  private static IntakeResult existing(Connection connection, PublicationRequested request)
      throws SQLException {
    PublicationKey key = request.key();
    try (PreparedStatement select = connection.prepareStatement(SELECT_BY_KEY)) {
      select.setString(1, key.tenant());
      select.setString(2, key.articleId());
      select.setString(3, key.revisionId());
      select.setString(4, key.destination());
      try (ResultSet rows = select.executeQuery()) {
        if (!rows.next()) {
          // Only a purge between the two statements can get here; the caller's retry settles it.
          throw new SQLException(
              "Delivery for " + key + " conflicted on insert but is gone now", "40001");
        }
        DeliverySnapshot existing = snapshot(rows);
        String existingHash = rows.getString("payload_hash");
        return existingHash.equals(request.payloadHash())
            ? new IntakeResult.Duplicate(existing)
            : new IntakeResult.Conflict(existing, existingHash);
      }
    }
  }

  /**
   * Claims up to {@code limit} due deliveries of {@code destination} for {@code owner}. One
   * statement, atomic by itself: it runs on the pool's auto-commit connection, one round trip
   * instead of a statement and a COMMIT.
   */
  @Override
  public List<ClaimedDelivery> claimDue(String destination, String owner, int limit, Duration lease)
      throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement claim = connection.prepareStatement(CLAIM_DUE)) {
      claim.setString(1, destination);
      claim.setInt(2, limit);
      claim.setString(3, owner);
      claim.setLong(4, lease.toMillis());
      return claims(claim);
    }
  }

  /**
   * Records {@code transition} for a claim, with its status event, if the claim is still current,
   * and {@code attempt} in the same transaction either way.
   *
   * @return the delivery after the transition, or empty when the claim was fenced off (its lease
   *     expired and the row was taken over): the result is then discarded, the attempt kept
   */
  @Override
  public Optional<DeliverySnapshot> complete(
      ClaimedDelivery claim, Transition transition, Attempt attempt) throws SQLException {
    return completeAll(List.of(new Completion(claim, transition, attempt)))
        .getFirst()
        .map(Recorded::delivery);
  }

  /**
   * Records claim holders' results in one transaction ({@link #complete} is the group of one): one
   * fenced UPDATE for all of them, one INSERT of all their attempt rows, one INSERT of the status
   * events of those announced, and one commit. Each result is fenced by its own claim: a fenced one
   * is empty in the answer (its attempt row kept) and does not hold the others back.
   */
  @Override
  public List<Optional<Recorded>> completeAll(List<Completion> completions) throws SQLException {
    if (completions.isEmpty()) {
      return List.of();
    }
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          Map<ClaimKey, Recorded> after = completeGroup(connection, completions);
          List<Optional<Recorded>> results = new ArrayList<>(completions.size());
          List<StatusEvents.Announcement> announced = new ArrayList<>();
          for (Completion completion : completions) {
            Recorded recorded = after.get(ClaimKey.of(completion.claim()));
            results.add(Optional.ofNullable(recorded));
            if (recorded != null && completion.transition().announced()) {
              announced.add(
                  new StatusEvents.Announcement(
                      recorded.delivery(), completion.transition().reason()));
            }
          }
          recordAttempts(connection, completions, results);
          events.appendAll(connection, announced);
          return results;
        });
  }

  /** A claim: its delivery and token (one delivery may have a late and a current claim). */
  private record ClaimKey(UUID id, long token) {
    static ClaimKey of(ClaimedDelivery claim) {
      return new ClaimKey(claim.id(), claim.claimToken());
    }
  }

  private static Map<ClaimKey, Recorded> completeGroup(
      Connection connection, List<Completion> completions) throws SQLException {
    int n = completions.size();
    UUID[] id = new UUID[n];
    Long[] token = new Long[n];
    String[] expected = new String[n];
    String[] state = new String[n];
    String[] remoteId = new String[n];
    String[] lastError = new String[n];
    Long[] retryMs = new Long[n];
    Boolean[] restartsWindow = new Boolean[n];
    for (int i = 0; i < n; i++) {
      ClaimedDelivery claim = completions.get(i).claim();
      Transition transition = completions.get(i).transition();
      id[i] = claim.id();
      token[i] = claim.claimToken();
      expected[i] = claim.state().name();
      state[i] = transition.to().name();
      remoteId[i] = transition.remoteId();
      lastError[i] = transition.reason();
      retryMs[i] = transition.retryIn().toMillis();
      restartsWindow[i] = transition.restartsWindow();
    }
    Map<ClaimKey, Recorded> after = new HashMap<>();
    try (PreparedStatement update = FreshPlans.prepare(connection, COMPLETE_ALL)) {
      update.setArray(1, connection.createArrayOf("uuid", id));
      update.setArray(2, connection.createArrayOf("bigint", token));
      update.setArray(3, connection.createArrayOf("text", expected));
      update.setArray(4, connection.createArrayOf("text", state));
      update.setArray(5, connection.createArrayOf("text", remoteId));
      update.setArray(6, connection.createArrayOf("text", lastError));
      update.setArray(7, connection.createArrayOf("bigint", retryMs));
      update.setArray(8, connection.createArrayOf("boolean", restartsWindow));
      try (ResultSet rows = update.executeQuery()) {
        while (rows.next()) {
          DeliverySnapshot snapshot = snapshot(rows);
          after.put(
              new ClaimKey(snapshot.deliveryId(), rows.getLong("claim_token")),
              new Recorded(snapshot, rows.getBoolean("released_later")));
        }
      }
    }
    return after;
  }

  private static void recordAttempts(
      Connection connection, List<Completion> completions, List<Optional<Recorded>> after)
      throws SQLException {
    int n = completions.size();
    UUID[] deliveryId = new UUID[n];
    Long[] token = new Long[n];
    Integer[] attemptNo = new Integer[n];
    String[] kind = new String[n];
    String[] owner = new String[n];
    Long[] tookMicros = new Long[n];
    Integer[] httpStatus = new Integer[n];
    String[] outcome = new String[n];
    String[] recordedState = new String[n];
    String[] remoteId = new String[n];
    String[] error = new String[n];
    String[] requestHash = new String[n];
    for (int i = 0; i < n; i++) {
      ClaimedDelivery claim = completions.get(i).claim();
      Attempt attempt = completions.get(i).attempt();
      deliveryId[i] = claim.id();
      token[i] = claim.claimToken();
      attemptNo[i] = claim.attempts();
      kind[i] = attempt.kind().name();
      owner[i] = attempt.owner();
      tookMicros[i] = attempt.took().toNanos() / 1_000;
      httpStatus[i] = attempt.httpStatus();
      outcome[i] = attempt.outcome();
      recordedState[i] = after.get(i).map(r -> r.delivery().state().name()).orElse(null);
      remoteId[i] = completions.get(i).transition().remoteId();
      error[i] = attempt.error();
      requestHash[i] = attempt.requestHash();
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT_ATTEMPTS)) {
      insert.setArray(1, connection.createArrayOf("uuid", deliveryId));
      insert.setArray(2, connection.createArrayOf("bigint", token));
      insert.setArray(3, connection.createArrayOf("integer", attemptNo));
      insert.setArray(4, connection.createArrayOf("text", kind));
      insert.setArray(5, connection.createArrayOf("text", owner));
      insert.setArray(6, connection.createArrayOf("bigint", tookMicros));
      insert.setArray(7, connection.createArrayOf("integer", httpStatus));
      insert.setArray(8, connection.createArrayOf("text", outcome));
      insert.setArray(9, connection.createArrayOf("text", recordedState));
      insert.setArray(10, connection.createArrayOf("text", remoteId));
      insert.setArray(11, connection.createArrayOf("text", error));
      insert.setArray(12, connection.createArrayOf("text", requestHash));
      insert.executeUpdate();
    }
  }

  @Override
  public Set<UUID> renewLeases(String owner, Map<UUID, Long> tokens, Duration horizon)
      throws SQLException {
    if (tokens.isEmpty()) {
      return Set.of();
    }
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          Set<UUID> renewed = new HashSet<>();
          try (PreparedStatement update = connection.prepareStatement(RENEW_LEASES)) {
            update.setArray(1, connection.createArrayOf("uuid", tokens.keySet().toArray()));
            update.setArray(2, connection.createArrayOf("bigint", tokens.values().toArray()));
            update.setString(3, owner);
            update.setLong(4, horizon.toMillis());
            try (ResultSet rows = update.executeQuery()) {
              while (rows.next()) {
                renewed.add(rows.getObject(1, UUID.class));
              }
            }
          }
          return renewed;
        });
  }

  /**
   * Turns up to {@code limit} expired dispatch claims into UNCERTAIN deliveries, each with its
   * event. {@code transition} is the policy's rule for an expired lease; the statement is written
   * for it ({@code DISPATCHING -> UNCERTAIN}, literal states matching the partial index {@code
   * ix_delivery_lease}), so any other target is refused.
   */
  @Override
  public List<DeliverySnapshot> expireLeases(int limit, Transition transition) throws SQLException {
    if (transition.to() != DeliveryState.UNCERTAIN) {
      throw new IllegalArgumentException(
          "An expired lease can only be recorded as UNCERTAIN: " + transition);
    }
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          List<DeliverySnapshot> expired = new ArrayList<>();
          try (PreparedStatement update = connection.prepareStatement(EXPIRE_LEASES)) {
            update.setInt(1, limit);
            try (ResultSet rows = update.executeQuery()) {
              while (rows.next()) {
                expired.add(snapshot(rows));
              }
            }
          }
          for (DeliverySnapshot delivery : expired) {
            events.append(connection, delivery, transition.reason());
          }
          return expired;
        });
  }

  /**
   * Moves up to {@code limit} unclaimed UNCERTAIN deliveries of {@code destination} with {@code
   * minAttempts <= attempts < maxAttemptsExclusive} by {@code transition}, each with its event.
   */
  @Override
  public List<DeliverySnapshot> settleUncertain(
      String destination,
      int minAttempts,
      int maxAttemptsExclusive,
      Duration firstAttemptWithin,
      Duration firstAttemptPast,
      Transition transition,
      int limit)
      throws SQLException {
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          List<DeliverySnapshot> settled = new ArrayList<>();
          try (PreparedStatement update = connection.prepareStatement(SETTLE_UNCERTAIN)) {
            update.setString(1, destination);
            update.setInt(2, minAttempts);
            update.setInt(3, maxAttemptsExclusive);
            setMillis(update, 4, firstAttemptWithin);
            setMillis(update, 5, firstAttemptWithin);
            setMillis(update, 6, firstAttemptPast);
            setMillis(update, 7, firstAttemptPast);
            update.setInt(8, limit);
            update.setString(9, transition.to().name());
            update.setString(10, transition.reason());
            try (ResultSet rows = update.executeQuery()) {
              while (rows.next()) {
                settled.add(snapshot(rows));
              }
            }
          }
          if (transition.announced()) {
            for (DeliverySnapshot delivery : settled) {
              events.append(connection, delivery, transition.reason());
            }
          }
          return settled;
        });
  }

  /** Leases UNCERTAIN deliveries, uncertain for at least {@code grace}, for a remote lookup. */
  @Override
  public List<ClaimedDelivery> claimUncertain(
      String destination, String owner, int limit, Duration lease, Duration grace)
      throws SQLException {
    return Transactions.inTransaction(
        dataSource,
        connection -> {
          try (PreparedStatement claim = connection.prepareStatement(CLAIM_UNCERTAIN)) {
            claim.setString(1, destination);
            claim.setLong(2, grace.toMillis());
            claim.setInt(3, limit);
            claim.setString(4, owner);
            claim.setLong(5, lease.toMillis());
            return claims(claim);
          }
        });
  }

  /**
   * Locks a delivery for an operator's decision on the caller's transaction.
   *
   * @return its state, or empty when there is no such delivery
   */
  public Optional<DeliveryState> lockState(Connection connection, UUID deliveryId)
      throws SQLException {
    return lock(connection, deliveryId).map(Locked::state);
  }

  /** A delivery locked for an operator's decision: its state and destination. */
  public record Locked(DeliveryState state, String destination) {}

  /**
   * As {@link #lockState}, with the delivery's destination (an operator's retry of an {@code
   * UNKNOWN_DESTINATION} delivery depends on it).
   */
  public Optional<Locked> lock(Connection connection, UUID deliveryId) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement(LOCK_BY_ID)) {
      lock.setObject(1, deliveryId);
      try (ResultSet rows = lock.executeQuery()) {
        return rows.next()
            ? Optional.of(new Locked(DeliveryState.valueOf(rows.getString(1)), rows.getString(2)))
            : Optional.empty();
      }
    }
  }

  /**
   * Records an operator's decision on the caller's transaction, on a row {@link #lockState locked}
   * in state {@code from}: moves it (taking any claim away, so a lookup in flight is fenced off)
   * and writes the status event. The caller records the audit row in the same transaction.
   */
  public DeliverySnapshot applyOperatorChange(
      Connection connection, UUID deliveryId, DeliveryState from, Transition transition)
      throws SQLException {
    DeliverySnapshot after;
    try (PreparedStatement update = connection.prepareStatement(OPERATOR_UPDATE)) {
      update.setString(1, transition.to().name());
      update.setString(2, transition.remoteId());
      update.setString(3, transition.reason());
      update.setBoolean(4, transition.resetsAttempts());
      update.setBoolean(5, transition.restartsWindow());
      update.setObject(6, deliveryId);
      update.setString(7, from.name());
      try (ResultSet rows = update.executeQuery()) {
        if (!rows.next()) {
          // The row is locked by this transaction: only a caller that did not lock it gets here.
          throw new IllegalStateException(
              "Delivery " + deliveryId + " is no longer " + from + "; lock it first");
        }
        after = snapshot(rows);
      }
    }
    if (transition.announced()) {
      events.append(connection, after, transition.reason());
    }
    return after;
  }

  @Override
  public Map<DeliveryState, Long> countOpenByState() throws SQLException {
    return countByState(COUNT_OPEN_BY_STATE);
  }

  @Override
  public Map<DeliveryState, Long> countFinishedByState() throws SQLException {
    return countByState(COUNT_FINISHED_BY_STATE);
  }

  private Map<DeliveryState, Long> countByState(String sql) throws SQLException {
    Map<DeliveryState, Long> counts = new EnumMap<>(DeliveryState.class);
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(sql);
        ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        counts.put(DeliveryState.valueOf(rows.getString(1)), rows.getLong(2));
      }
    }
    return counts;
  }

  @Override
  public Map<DeliveryState, Long> oldestUnsettledSeconds() throws SQLException {
    Map<DeliveryState, Long> ages = new EnumMap<>(DeliveryState.class);
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(OLDEST_UNSETTLED);
        ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        ages.put(DeliveryState.valueOf(rows.getString(1)), Math.max(0, rows.getLong(2)));
      }
    }
    return ages;
  }

  @Override
  public List<Unsettled> unsettledByDestination() throws SQLException {
    List<Unsettled> unsettled = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(UNSETTLED_BY_DESTINATION);
        ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        unsettled.add(
            new Unsettled(
                rows.getString(1),
                DeliveryState.valueOf(rows.getString(2)),
                rows.getLong(3),
                Math.max(0, rows.getLong(4))));
      }
    }
    return unsettled;
  }

  private static void setMillis(PreparedStatement statement, int index, Duration duration)
      throws SQLException {
    if (duration == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, duration.toMillis());
    }
  }

  private static List<ClaimedDelivery> claims(PreparedStatement claim) throws SQLException {
    List<ClaimedDelivery> claimed = new ArrayList<>();
    try (ResultSet rows = claim.executeQuery()) {
      while (rows.next()) {
        claimed.add(
            new ClaimedDelivery(
                rows.getObject("id", UUID.class),
                rows.getObject("job_id", UUID.class),
                new PublicationKey(
                    rows.getString("tenant_id"),
                    rows.getString("article_id"),
                    rows.getString("revision_id"),
                    rows.getString("destination")),
                rows.getString("idempotency_key"),
                rows.getString("content"),
                rows.getLong("claim_token"),
                rows.getInt("attempts"),
                rows.getString("trace_parent"),
                rows.getString("trace_state"),
                instant(rows.getTimestamp("uncertain_since")),
                DeliveryState.valueOf(rows.getString("state")),
                Duration.ofMillis(Math.max(0, rows.getLong("since_first_attempt_ms")))));
      }
    }
    return claimed;
  }

  private static DeliverySnapshot snapshot(ResultSet rows) throws SQLException {
    return new DeliverySnapshot(
        rows.getObject("id", UUID.class),
        rows.getObject("job_id", UUID.class),
        rows.getString("tenant_id"),
        rows.getString("article_id"),
        rows.getString("revision_id"),
        rows.getString("destination"),
        DeliveryState.valueOf(rows.getString("state")),
        rows.getString("remote_id"),
        rows.getInt("attempts"),
        rows.getString("trace_parent"),
        rows.getString("trace_state"));
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
