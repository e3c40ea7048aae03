package io.herald.consumer.ops;

import io.herald.consumer.breaker.CircuitBreaker;
import io.herald.consumer.destination.DestinationConfig;
import io.herald.consumer.pause.PauseState;
import io.herald.consumer.pause.Pauses;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What the operator API says and does about destinations: each configured destination's guarantee,
 * its operator pause (durable, read fresh from the database, so every instance answers the same),
 * this instance's circuit breaker, and the deliveries waiting for it; pause and resume.
 * Thread-safe.
 */
public final class DestinationControl {

  /** Waiting deliveries per destination, on the partial index of the claim statement. */
  private static final String WAITING =
      "SELECT destination, count(*) FROM consumer.delivery"
          + " WHERE state IN ('PENDING', 'RETRY_WAIT') GROUP BY destination";

  /** One destination as the operator API shows it. */
  public record Status(
      DestinationConfig config,
      Optional<PauseState> pause,
      CircuitBreaker.Snapshot breaker,
      long waiting) {

    public boolean paused() {
      return pause.map(PauseState::paused).orElse(false);
    }
  }

  private final Map<String, DestinationConfig> destinations;
  private final Map<String, CircuitBreaker> breakers;
  private final Pauses pauses;
  private final DataSource dataSource;

  public DestinationControl(
      Map<String, DestinationConfig> destinations,
      Map<String, CircuitBreaker> breakers,
      Pauses pauses,
      DataSource dataSource) {
    this.destinations = Map.copyOf(destinations);
    this.breakers = Map.copyOf(breakers);
    this.pauses = Objects.requireNonNull(pauses, "pauses");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    for (String name : destinations.keySet()) {
      if (!breakers.containsKey(name)) {
        throw new IllegalArgumentException("no circuit breaker for destination " + name);
      }
    }
  }

  /** Every configured destination, in name order. */
  public List<Status> statuses() throws SQLException {
    Map<String, PauseState> decisions = pauses.readAll();
    Map<String, Long> waiting = waiting();
    return destinations.keySet().stream()
        .sorted()
        .map(
            name ->
                new Status(
                    destinations.get(name),
                    Optional.ofNullable(decisions.get(name)),
                    breakers.get(name).snapshot(),
                    waiting.getOrDefault(name, 0L)))
        .toList();
  }

  /** Whether {@code name} is a configured destination. */
  public boolean knows(String name) {
    return destinations.containsKey(name);
  }

  /** Pauses a configured destination (see {@link #knows}). */
  public Status pause(String name, String actor, String reason) throws SQLException {
    pauses.pause(name, actor, reason);
    return status(name);
  }

  /** Resumes a configured destination (see {@link #knows}). */
  public Status resume(String name, String actor, String reason) throws SQLException {
    pauses.resume(name, actor, reason);
    return status(name);
  }

  private Status status(String name) throws SQLException {
    return statuses().stream()
        .filter(s -> s.config().name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown destination " + name));
  }

  private Map<String, Long> waiting() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(WAITING);
        ResultSet rows = select.executeQuery()) {
      Map<String, Long> counts = new HashMap<>();
      while (rows.next()) {
        counts.put(rows.getString(1), rows.getLong(2));
      }
      return counts;
    }
  }
}
