package io.herald.consumer.pause;

import io.herald.consumer.metrics.ConsumerMetrics;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operator pauses of destinations, durable in {@code consumer.destination_pause} (migration {@code
 * consumer/V10}) and shared by every instance: {@link #pause}/{@link #resume} write the decision
 * (who, why, when), and each instance's dispatcher reads the table at most once per {@code
 * refreshEvery} ({@link #refresh}), answering {@link #paused} from that copy. A pause written by
 * another instance therefore takes effect here within {@code refreshEvery}; one written through
 * this instance at once.
 *
 * <p>Thread-safe.
 */
public final class Pauses implements PauseGate {

  private static final Logger log = LoggerFactory.getLogger(Pauses.class);

  private static final String UPSERT =
      "INSERT INTO consumer.destination_pause (destination, paused, actor, reason, changed_at)"
          + " VALUES (?, ?, ?, ?, now())"
          + " ON CONFLICT (destination) DO UPDATE SET paused = EXCLUDED.paused,"
          + " actor = EXCLUDED.actor, reason = EXCLUDED.reason, changed_at = EXCLUDED.changed_at"
          + " RETURNING destination, paused, actor, reason, changed_at";

  private static final String SELECT_ALL =
      "SELECT destination, paused, actor, reason, changed_at FROM consumer.destination_pause";

  private final DataSource dataSource;
  private final Duration refreshEvery;
  private final LongSupplier nanos;
  private final ConsumerMetrics metrics;
  private final Map<String, PauseState> known = new ConcurrentHashMap<>();
  private final Object refreshing = new Object();
  private long lastRefreshNanos;
  private boolean everRead;

  public Pauses(
      DataSource dataSource, Duration refreshEvery, LongSupplier nanos, ConsumerMetrics metrics) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.refreshEvery = Objects.requireNonNull(refreshEvery, "refreshEvery");
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /** Records that {@code actor} paused {@code destination} because of {@code reason}. */
  public PauseState pause(String destination, String actor, String reason) throws SQLException {
    return write(destination, true, actor, reason);
  }

  /** Records that {@code actor} resumed {@code destination} because of {@code reason}. */
  public PauseState resume(String destination, String actor, String reason) throws SQLException {
    return write(destination, false, actor, reason);
  }

  /** The last decision about {@code destination} as this instance knows it, if any was made. */
  public Optional<PauseState> state(String destination) {
    return Optional.ofNullable(known.get(destination));
  }

  @Override
  public boolean paused(String destination) {
    PauseState state = known.get(destination);
    return state != null && state.paused();
  }

  @Override
  public void refresh() {
    synchronized (refreshing) {
      long now = nanos.getAsLong();
      if (everRead && now - lastRefreshNanos < refreshEvery.toNanos()) {
        return;
      }
      lastRefreshNanos = now;
      try {
        Map<String, PauseState> read = readAll();
        // Rows are never deleted (a resume is a row too); a decision written through this
        // instance while the read ran is newer than what the read saw: keep it.
        read.forEach(
            (destination, state) ->
                known.merge(
                    destination,
                    state,
                    (mine, stored) ->
                        stored.changedAt().isBefore(mine.changedAt()) ? mine : stored));
        everRead = true;
      } catch (SQLException | RuntimeException e) {
        // The last known pauses stay in force: a database outage must not release a paused
        // destination (the dispatcher cannot claim anything meanwhile anyway).
        log.error(
            "Reading the destination pauses failed; keeping the last known {} until the next"
                + " refresh in {}",
            known.values(),
            refreshEvery,
            e);
        metrics.loopFailure("pause-refresh");
      }
    }
  }

  /** Every decision in the table, by destination. */
  public Map<String, PauseState> readAll() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(SELECT_ALL);
        ResultSet rows = select.executeQuery()) {
      Map<String, PauseState> states = new ConcurrentHashMap<>();
      while (rows.next()) {
        PauseState state = state(rows);
        states.put(state.destination(), state);
      }
      return states;
    }
  }

  private PauseState write(String destination, boolean paused, String actor, String reason)
      throws SQLException {
    PauseState state =
        Transactions.inTransaction(
            dataSource,
            connection -> {
              try (PreparedStatement upsert = connection.prepareStatement(UPSERT)) {
                upsert.setString(1, destination);
                upsert.setBoolean(2, paused);
                upsert.setString(3, actor);
                upsert.setString(4, reason);
                try (ResultSet rows = upsert.executeQuery()) {
                  rows.next();
                  return state(rows);
                }
              }
            });
    known.put(destination, state);
    log.warn(
        "Destination {} {} by {}: {}", destination, paused ? "paused" : "resumed", actor, reason);
    return state;
  }

  private static PauseState state(ResultSet rows) throws SQLException {
    return new PauseState(
        rows.getString(1),
        rows.getBoolean(2),
        rows.getString(3),
        rows.getString(4),
        rows.getTimestamp(5).toInstant());
  }
}
