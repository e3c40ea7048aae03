package io.herald.cli.dlq;

import io.herald.cli.CliDatabase;
import io.herald.runtime.db.DatabaseConfig;
import io.herald.runtime.db.Transactions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code consumer.dlq_replay}: which dead letters were replayed, when, and to where, in the
 * consumer's database with the consumer's own settings. A replay is recorded in the transaction
 * that waits for Kafka's acknowledgement: the row is inserted first ({@code ON CONFLICT DO
 * NOTHING}), which also makes a concurrent replay of the same dead letter wait and then find it.
 * Stateless apart from its data source; thread-safe.
 */
final class ReplayLog {

  static final String INSERT =
      "INSERT INTO consumer.dlq_replay (dlq_topic, dlq_partition, dlq_offset, message_id)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING";

  static final String COMPLETE =
      "UPDATE consumer.dlq_replay SET replayed_to = ?, replayed_at = now()"
          + " WHERE dlq_topic = ? AND dlq_partition = ? AND dlq_offset = ?"
          + " RETURNING replayed_at";

  static final String FIND_ONE =
      "SELECT replayed_at, replayed_to FROM consumer.dlq_replay"
          + " WHERE dlq_topic = ? AND dlq_partition = ? AND dlq_offset = ?";

  /** The replays among a page of dead letters: partitions and offsets as two parallel arrays. */
  static final String FIND_MANY =
      "SELECT r.dlq_partition, r.dlq_offset, r.replayed_at, r.replayed_to"
          + " FROM consumer.dlq_replay r"
          + " JOIN unnest(?::int[], ?::bigint[]) AS p(part, off)"
          + " ON r.dlq_partition = p.part AND r.dlq_offset = p.off"
          + " WHERE r.dlq_topic = ?";

  /** A recorded replay. */
  record Replay(OffsetDateTime at, String to) {}

  /** What {@link #replayOnce} found or did. */
  sealed interface Outcome {
    record Replayed(Replay replay) implements Outcome {}

    record AlreadyReplayed(Replay replay) implements Outcome {}
  }

  /** Produces the record and waits for its acknowledgement; returns where it was written. */
  @FunctionalInterface
  interface Producing {
    String produce();
  }

  private final DataSource dataSource;
  private final DatabaseConfig database;

  ReplayLog(DatabaseConfig database) {
    this.database = database;
    this.dataSource = CliDatabase.dataSource(database);
  }

  /**
   * Replays {@code letter} unless it was replayed before: inserts its row, runs {@code producing}
   * only when the row is new, records where the record went, and commits. A failure of {@code
   * producing} rolls the row back, so the dead letter can be replayed again.
   */
  Outcome replayOnce(DeadLetter letter, UUID messageId, Producing producing) {
    try {
      return Transactions.inTransaction(
          dataSource,
          connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
              bindPosition(insert, letter, 1);
              insert.setObject(4, messageId);
              if (insert.executeUpdate() == 0) {
                return new Outcome.AlreadyReplayed(find(connection, letter).orElseThrow());
              }
            }
            String to = producing.produce();
            try (PreparedStatement complete = connection.prepareStatement(COMPLETE)) {
              complete.setString(1, to);
              bindPosition(complete, letter, 2);
              try (ResultSet row = complete.executeQuery()) {
                row.next();
                return new Outcome.Replayed(new Replay(row.getObject(1, OffsetDateTime.class), to));
              }
            }
          });
    } catch (SQLException e) {
      throw CliDatabase.failure(
          e,
          "record the replay of dead letter " + letter.position() + " in consumer.dlq_replay",
          database);
    }
  }

  /** The recorded replays among {@code letters}, by {@link DeadLetter#position()}. */
  Map<String, Replay> find(String dlqTopic, Collection<DeadLetter> letters) {
    Map<String, Replay> found = new HashMap<>();
    if (letters.isEmpty()) {
      return found;
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(FIND_MANY)) {
      Array partitions =
          connection.createArrayOf(
              "int4", letters.stream().map(DeadLetter::dlqPartition).toArray(Integer[]::new));
      Array offsets =
          connection.createArrayOf(
              "int8", letters.stream().map(DeadLetter::dlqOffset).toArray(Long[]::new));
      select.setArray(1, partitions);
      select.setArray(2, offsets);
      select.setString(3, dlqTopic);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          found.put(
              rows.getInt(1) + "@" + rows.getLong(2),
              new Replay(rows.getObject(3, OffsetDateTime.class), rows.getString(4)));
        }
      }
      return found;
    } catch (SQLException e) {
      throw CliDatabase.failure(e, "read consumer.dlq_replay", database);
    }
  }

  private static Optional<Replay> find(Connection connection, DeadLetter letter)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(FIND_ONE)) {
      bindPosition(select, letter, 1);
      try (ResultSet row = select.executeQuery()) {
        return row.next()
            ? Optional.of(new Replay(row.getObject(1, OffsetDateTime.class), row.getString(2)))
            : Optional.empty();
      }
    }
  }

  private static void bindPosition(PreparedStatement statement, DeadLetter letter, int first)
      throws SQLException {
    statement.setString(first, letter.dlqTopic());
    statement.setInt(first + 1, letter.dlqPartition());
    statement.setLong(first + 2, letter.dlqOffset());
  }
}
