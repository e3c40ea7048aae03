package io.herald.consumer.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.common.event.PublicationKey;
import io.herald.common.id.UuidV7;
import io.herald.consumer.TestKit;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.runtime.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two statements that lock several deliveries and wait for their locks, the lease keeper's
 * renewal and the recording of a group of results, lock them in one order: one instance runs both
 * over the same calls in flight, and in opposite orders they deadlock (PostgreSQL breaks a deadlock
 * after {@code deadlock_timeout}, a second in which no result is recorded).
 */
@HeraldIntegrationTest
class DeliveryLockOrderIT {

  private static final String OWNER = "owner-1";

  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private DataSource dataSource;
  private Deliveries deliveries;

  @BeforeEach
  void migrate(StackContext stack) {
    dataSource = stack.dataSource();
    deliveries = TestKit.migratedDeliveries(stack);
  }

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void shouldRenewAndRecordTheSameClaimsTakenInOppositeOrdersWithoutADeadlock() throws Exception {
    // A table the size of a running consumer's, so each statement finds its rows by index in the
    // order of its arrays (a table of a few rows is read whole, in one order for every statement).
    fill(3_000);
    List<String> byId = inIdOrder(insert("lock-order-1"), insert("lock-order-2"));
    // The later row claimed first: its lease ends first, and the renewal, which reads the leases
    // by the index on their end, comes to it first.
    ClaimedDelivery high = claim(byId.get(1));
    ClaimedDelivery low = claim(byId.get(0));

    try (Connection lowHolder = dataSource.getConnection();
        Connection highHolder = dataSource.getConnection()) {
      int lowPid = lockRow(lowHolder, low.id());
      int highPid = lockRow(highHolder, high.id());
      // The renewal names the later row first, the recording the earlier one: each statement's
      // arrays in the order its caller happens to hold them.
      Map<UUID, Long> tokens = new LinkedHashMap<>();
      tokens.put(high.id(), high.claimToken());
      tokens.put(low.id(), low.claimToken());
      Future<Set<UUID>> renewal =
          threads.submit(() -> deliveries.renewLeases(OWNER, tokens, Duration.ofMinutes(1)));
      await().until(() -> waitingForLocks() == 1);
      Future<List<Optional<Recorded>>> recording =
          threads.submit(() -> deliveries.completeAll(List.of(published(low), published(high))));
      await().until(() -> waitingForLocks() == 2);

      lowHolder.commit();
      // Whoever took the earlier row now waits for the later one.
      await().until(() -> waitingOn(highPid) >= 1 && waitingForLocks() == 2);
      highHolder.commit();

      List<Optional<Recorded>> recorded = recording.get(30, TimeUnit.SECONDS);
      assertThat(renewal.get(30, TimeUnit.SECONDS)).isSubsetOf(low.id(), high.id());
      assertThat(recorded)
          .allSatisfy(
              result ->
                  assertThat(result.orElseThrow().delivery().state())
                      .isEqualTo(DeliveryState.PUBLISHED));
    }
  }

  private static Completion published(ClaimedDelivery claim) {
    return new Completion(
        claim,
        Transition.published("remote-" + claim.id(), null),
        new Attempt(Attempt.Kind.PUBLISH, OWNER, Duration.ofMillis(1), "published", 201, null));
  }

  /** Locks a delivery's row in an open transaction of {@code connection}; its backend's pid. */
  private static int lockRow(Connection connection, UUID id) throws SQLException {
    connection.setAutoCommit(false);
    try (PreparedStatement lock =
        connection.prepareStatement(
            "SELECT pg_backend_pid() FROM consumer.delivery WHERE id = ? FOR UPDATE")) {
      lock.setObject(1, id);
      try (ResultSet row = lock.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    }
  }

  /** How many backends wait for a lock one of {@code pids} holds. */
  private int waitingOn(int... pids) throws SQLException {
    int waiting = 0;
    for (int pid : pids) {
      waiting +=
          count("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))", pid);
    }
    return waiting;
  }

  /** How many backends of this database wait for a lock. */
  private int waitingForLocks() throws SQLException {
    return count(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            + " AND wait_event_type = 'Lock'");
  }

  private int count(String sql, int... args) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setInt(i + 1, args[i]);
      }
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    }
  }

  /** The destinations of two deliveries, in the database's order of their ids (not Java's). */
  private List<String> inIdOrder(Inserted a, Inserted b) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement("SELECT ?::uuid < ?::uuid")) {
      statement.setObject(1, a.id());
      statement.setObject(2, b.id());
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getBoolean(1)
            ? List.of(a.destination(), b.destination())
            : List.of(b.destination(), a.destination());
      }
    }
  }

  private record Inserted(UUID id, String destination) {}

  /** {@code count} deliveries to a destination no test claims from, and fresh statistics. */
  private void fill(int count) throws SQLException {
    List<NewDelivery> filler = new ArrayList<>(count);
    List<Transition> received = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      filler.add(newDelivery(new PublicationKey("t1", "filler-" + i, "r-1", "lock-order-filler")));
      received.add(Transition.received());
    }
    Transactions.inTransaction(
        dataSource, connection -> deliveries.insertAll(connection, filler, received));
    try (Connection connection = dataSource.getConnection();
        PreparedStatement analyze = connection.prepareStatement("ANALYZE consumer.delivery")) {
      analyze.execute();
    }
  }

  private static NewDelivery newDelivery(PublicationKey key) {
    return new NewDelivery(
        UuidV7.system().get(), UUID.randomUUID(), TestKit.request(key, "T"), null, null);
  }

  /** A new delivery to its own destination (named after the article). */
  private Inserted insert(String articleId) throws SQLException {
    NewDelivery delivery = newDelivery(new PublicationKey("t1", articleId, "r-1", articleId));
    Transactions.inTransaction(
        dataSource,
        connection ->
            deliveries.insertAll(connection, List.of(delivery), List.of(Transition.received())));
    return new Inserted(delivery.id(), articleId);
  }

  /** The one delivery of {@code destination}, claimed by {@link #OWNER}. */
  private ClaimedDelivery claim(String destination) throws SQLException {
    List<ClaimedDelivery> claims =
        deliveries.claimDue(destination, OWNER, 1, Duration.ofMinutes(1));
    assertThat(claims).hasSize(1);
    return claims.getFirst();
  }
}
