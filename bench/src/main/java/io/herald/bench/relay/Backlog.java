package io.herald.bench.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A backlog for the relay drains: outbox rows loaded server-side in transactions of a given size,
 * pgoutput slots created before it (so every reader reads the same WAL), and the topic's record
 * count, by which a drain into Kafka is seen to end. Stateless; each call opens its own connection
 * or client.
 */
public final class Backlog {

  /** One {@code DO} block: {@code %d} loops, each inserting rows and committing. */
  private static final String LOAD =
      """
      DO $$
      BEGIN
        FOR b IN 0..%d LOOP
          INSERT INTO writer.outbox (id, aggregate_type, aggregate_id, event_type, tenant_id, payload)
          SELECT gen_random_uuid(), 'publication', 't1/a-' || (g %% 50) || '/dest-a',
                 'PublicationRequested', 't1',
                 jsonb_build_object('seq', g, 'tenant', 't1', 'content', jsonb_build_object('title', 't' || g))
          FROM generate_series(b * %d, b * %d + %d) g;
          COMMIT;
        END LOOP;
      END $$
      """;

  private static final String CREATE_SLOT =
      "SELECT pg_create_logical_replication_slot(?, 'pgoutput')";
  private static final String DROP_SLOT =
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?";

  /** True once no session holds the slot, or the slot is gone. */
  private static final String SLOT_RELEASED =
      "SELECT NOT coalesce((SELECT active FROM pg_replication_slots WHERE slot_name = ?), false)";

  private static final String CURRENT_LSN = "SELECT pg_current_wal_lsn()::text";
  private static final String SLOT_CONFIRMED =
      "SELECT confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots WHERE slot_name = ?";

  /**
   * A transaction after the backlog on a table of the publication that no router publishes (the
   * relay's heartbeat table): {@code pg_recvlogical --endpos} stops at the first message at or past
   * its end position, and without one it would wait for the server's next keepalive.
   */
  private static final String END_MARK =
      "INSERT INTO herald_relay.heartbeat (id, beat_at) VALUES ('bench-backlog-end', now())"
          + " ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at";

  private static final String AUTOVACUUM_WORKERS =
      "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'";

  /** How long {@link #awaitNoAutovacuum} waits at most. */
  private static final Duration AUTOVACUUM_WAIT = Duration.ofMinutes(2);

  private Backlog() {}

  /**
   * Waits (up to 2 minutes) until PostgreSQL runs no autovacuum worker, and says how long it
   * waited. About a minute after a million-row backlog is loaded, PostgreSQL vacuums the outbox for
   * tens of seconds on the same cores: that is the box recovering from the load, and a latency
   * measured meanwhile is that, not the reader's.
   */
  public static String awaitNoAutovacuum(DataSource dataSource) throws InterruptedException {
    long start = System.nanoTime();
    try {
      Awaitility.await()
          .atMost(AUTOVACUUM_WAIT)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> autovacuumWorkers(dataSource) == 0);
      return String.format(
          Locale.ROOT, "waited %.1f s for autovacuum to finish", (System.nanoTime() - start) / 1e9);
    } catch (ConditionTimeoutException stillRunning) {
      return "autovacuum still running after "
          + AUTOVACUUM_WAIT.toMinutes()
          + " minutes (measured anyway)";
    }
  }

  private static long autovacuumWorkers(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(AUTOVACUUM_WORKERS);
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /**
   * Loads {@code rows} outbox rows, {@code rowsPerTx} per committed transaction, in one server-side
   * block (no client round trip per transaction), with {@code synchronous_commit=off} as a bulk
   * load would.
   *
   * @throws IllegalArgumentException if {@code rows} is not a multiple of {@code rowsPerTx}
   */
  public static void load(DataSource dataSource, int rows, int rowsPerTx) throws SQLException {
    if (rowsPerTx < 1 || rows < rowsPerTx || rows % rowsPerTx != 0) {
      throw new IllegalArgumentException(
          "rows (" + rows + ") must be a positive multiple of rowsPerTx (" + rowsPerTx + ")");
    }
    String block = LOAD.formatted(rows / rowsPerTx - 1, rowsPerTx, rowsPerTx, rowsPerTx - 1);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      statement.execute("SET synchronous_commit = off");
      statement.execute(block);
    }
  }

  /** Creates a pgoutput slot at the current WAL position. */
  public static void createSlot(DataSource dataSource, String slot) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        var statement = connection.prepareStatement(CREATE_SLOT)) {
      statement.setString(1, slot);
      statement.execute();
    }
  }

  /** Drops the slot if it exists (its reader must have disconnected). */
  public static void dropSlot(DataSource dataSource, String slot) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        var statement = connection.prepareStatement(DROP_SLOT)) {
      statement.setString(1, slot);
      statement.execute();
    }
  }

  /**
   * Waits until no walsender holds {@code slot} (its reader has gone and the server has ended the
   * session), so the walsender's CPU is in the postmaster's reaped-children time.
   *
   * @throws IllegalStateException if it is still held after {@code timeout}
   */
  public static void awaitReleased(DataSource dataSource, String slot, Duration timeout)
      throws SQLException, InterruptedException {
    awaitSlot(dataSource, SLOT_RELEASED, List.of(slot), timeout, "slot " + slot + " released");
  }

  /** {@link #awaitReleased}, then {@link #dropSlot}: a reader's slot done with. */
  public static void dropWhenReleased(DataSource dataSource, String slot, Duration timeout)
      throws SQLException, InterruptedException {
    awaitReleased(dataSource, slot, timeout);
    dropSlot(dataSource, slot);
  }

  /**
   * Waits until {@code slot}'s reader has confirmed everything up to {@code lsn}: a topic's end
   * offsets are no exact proof that a backlog is drained, since transaction markers take offsets
   * too and a relay restarted on a slot publishes again what it sent after its last confirmed
   * position.
   */
  public static void awaitConfirmed(
      DataSource dataSource, String slot, String lsn, Duration timeout)
      throws SQLException, InterruptedException {
    awaitSlot(
        dataSource, SLOT_CONFIRMED, List.of(lsn, slot), timeout, "slot " + slot + " at " + lsn);
  }

  /** Polls {@code sql}, a one-row boolean about another process's slot, until it is true. */
  private static void awaitSlot(
      DataSource dataSource, String sql, List<String> parameters, Duration timeout, String what)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Connection connection = dataSource.getConnection();
        var statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.size(); i++) {
        statement.setString(i + 1, parameters.get(i));
      }
      while (true) {
        try (ResultSet row = statement.executeQuery()) {
          if (row.next() && row.getBoolean(1)) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not " + what + " after " + timeout);
        }
        Thread.sleep(20); // polling the server's view of another process's session
      }
    }
  }

  /**
   * The backlog's end: the server's current WAL position ({@code 0/1A2B3C4D}), then marked by a
   * transaction past it ({@link #END_MARK}), so a reader told to stop there sees a message that
   * ends it.
   */
  public static String markEnd(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      String end;
      try (ResultSet row = statement.executeQuery(CURRENT_LSN)) {
        row.next();
        end = row.getString(1);
      }
      statement.execute(END_MARK);
      return end;
    }
  }

  /**
   * The records of {@code topic}, its partitions' end offsets summed. Asks through the admin
   * client: a consumer's end-offset lookups log a warning per partition per call.
   */
  public static long records(String bootstrapServers, String topic)
      throws InterruptedException, ExecutionException {
    try (Admin admin = admin(bootstrapServers)) {
      return records(admin, latest(admin, topic));
    }
  }

  /**
   * Waits until {@code topic}'s partitions hold {@code target} records in all, polling every 50 ms.
   *
   * @throws IllegalStateException if they do not within {@code timeout}
   */
  public static void awaitRecords(
      String bootstrapServers, String topic, long target, Duration timeout)
      throws InterruptedException, ExecutionException {
    try (Admin admin = admin(bootstrapServers)) {
      Map<TopicPartition, OffsetSpec> latest = latest(admin, topic);
      long deadline = System.nanoTime() + timeout.toNanos();
      long seen = 0;
      while (System.nanoTime() < deadline) {
        seen = records(admin, latest);
        if (seen >= target) {
          return;
        }
        Thread.sleep(50); // polling the broker's offsets: the condition is on another process
      }
      throw new IllegalStateException(
          "topic " + topic + " held " + seen + " of " + target + " records after " + timeout);
    }
  }

  private static Admin admin(String bootstrapServers) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
  }

  private static Map<TopicPartition, OffsetSpec> latest(Admin admin, String topic)
      throws InterruptedException, ExecutionException {
    TopicDescription description =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicPartitionInfo partition : description.partitions()) {
      latest.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest());
    }
    return latest;
  }

  private static long records(Admin admin, Map<TopicPartition, OffsetSpec> latest)
      throws InterruptedException, ExecutionException {
    return admin.listOffsets(latest).all().get().values().stream()
        .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
        .sum();
  }
}
