package io.herald.consumer.delivery;

import io.herald.common.event.PublicationKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The operators' read side of the delivery table: one delivery, or the work list of a state, as
 * {@link DeliveryView}s. Reads only; every change goes through {@link Deliveries}.
 *
 * <p>Thread-safe: stateless apart from the pool.
 */
public final class DeliveryViews {

  private static final String VIEW_COLUMNS =
      "d.id, d.seq, d.job_id, d.message_id, d.tenant_id, d.article_id, d.revision_id,"
          + " d.destination, d.idempotency_key, d.payload_hash, d.state, d.attempts, d.claim_token,"
          + " d.claim_owner, d.remote_id, d.last_error, d.uncertain_since, d.next_attempt_at,"
          + " d.updated_at";

  private static final String VIEW_BY_ID =
      "SELECT " + VIEW_COLUMNS + " FROM consumer.delivery d WHERE d.id = ?";

  private static final String VIEW_BY_KEY =
      "SELECT "
          + VIEW_COLUMNS
          + " FROM consumer.delivery d"
          + " WHERE d.tenant_id = ? AND d.article_id = ? AND d.revision_id = ? AND d.destination = ?";

  private static final String VIEW_BY_STATE =
      "SELECT "
          + VIEW_COLUMNS
          + " FROM consumer.delivery d WHERE d.state = ? ORDER BY d.seq LIMIT ?";

  private final DataSource dataSource;

  public DeliveryViews(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  public Optional<DeliveryView> find(UUID id) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(VIEW_BY_ID)) {
      select.setObject(1, id);
      return firstView(select);
    }
  }

  public Optional<DeliveryView> find(PublicationKey key) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(VIEW_BY_KEY)) {
      select.setString(1, key.tenant());
      select.setString(2, key.articleId());
      select.setString(3, key.revisionId());
      select.setString(4, key.destination());
      return firstView(select);
    }
  }

  /** Up to {@code limit} deliveries in {@code state}, oldest first (operators' work list). */
  public List<DeliveryView> list(DeliveryState state, int limit) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(VIEW_BY_STATE)) {
      select.setString(1, state.name());
      select.setInt(2, limit);
      List<DeliveryView> views = new ArrayList<>();
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          views.add(view(rows));
        }
      }
      return views;
    }
  }

  private static Optional<DeliveryView> firstView(PreparedStatement select) throws SQLException {
    try (ResultSet rows = select.executeQuery()) {
      return rows.next() ? Optional.of(view(rows)) : Optional.empty();
    }
  }

  private static DeliveryView view(ResultSet rows) throws SQLException {
    return new DeliveryView(
        rows.getObject("id", UUID.class),
        rows.getLong("seq"),
        rows.getObject("job_id", UUID.class),
        rows.getObject("message_id", UUID.class),
        rows.getString("tenant_id"),
        rows.getString("article_id"),
        rows.getString("revision_id"),
        rows.getString("destination"),
        rows.getString("idempotency_key"),
        rows.getString("payload_hash"),
        DeliveryState.valueOf(rows.getString("state")),
        rows.getInt("attempts"),
        rows.getLong("claim_token"),
        rows.getString("claim_owner"),
        rows.getString("remote_id"),
        rows.getString("last_error"),
        instant(rows.getTimestamp("uncertain_since")),
        instant(rows.getTimestamp("next_attempt_at")),
        instant(rows.getTimestamp("updated_at")));
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
