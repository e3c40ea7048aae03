package io.herald.relay.it;

import io.herald.devstack.HeraldStack;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import io.herald.devstack.embedded.EmbeddedPostgresPair;
import io.herald.devstack.proxy.TcpProxy;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One PostgreSQL failover under load for {@link RelayFailoverUnsyncedIT}, without {@code
 * synchronized_standby_slots}: a primary and a physical standby (PostgreSQL 17, the slot a failover
 * slot synchronized to the standby), the relay reaching the database through one address (a proxy
 * standing for a virtual IP). Under a steady write load the standby's replication link is frozen,
 * so it falls behind while the relay goes on publishing; then the primary is stopped immediately,
 * the standby promoted and the address moved to it. The outcome is judged against the new primary's
 * outbox: events in Kafka for commits it lacks (phantoms), and rows it holds that never reached
 * Kafka (lost). Prints its figures.
 *
 * <p>The whole pipeline's failover with {@code synchronized_standby_slots}, where neither may
 * happen, is the fault class F14 ({@code PrimaryFailoverIT} in the faults module).
 */
final class FailoverRun {

  private static final String DATABASE = "herald";

  /**
   * Rows written while the standby is held back; each becomes a phantom. Their WAL must outlast
   * what the new primary writes before the relay is back (its first commits, full-page images).
   */
  private static final int HELD_ROWS = 300;

  private FailoverRun() {}

  /** One failover under load, the standby held back before it; prints its figures. */
  static Outcome failOverBehindTheStandby(StackContext context) throws Exception {
    try (EmbeddedPostgresPair pair =
            EmbeddedPostgresPair.start(
                Path.of("target", "relay-failover-it", "unsynced-" + System.nanoTime()),
                HeraldStack.postgresBinaries());
        TcpProxy clients = TcpProxy.start("pg-clients", addressOf(pair.primary()));
        TcpProxy address = TcpProxy.start("pg-relay", addressOf(pair.primary()))) {
      pair.primary().createDatabase(DATABASE);
      PostgresServer primary = pair.primary();
      PGSimpleDataSource dataSource = dataSource(clients.port(), primary);
      RelayFixture fixture =
          new RelayFixture(
              context,
              "failover-unsynced",
              new RelayFixture.Database(
                  "127.0.0.1",
                  address.port(),
                  DATABASE,
                  primary.user(),
                  primary.password(),
                  dataSource));
      pair.startStandby(DATABASE);
      OutboxRows rows = fixture.writerOutbox(20);
      try (RelayFixture.Relay relay =
              fixture.start(
                  Map.of(
                      "relay.slot.failover", "true",
                      "relay.slot.lag-check-interval", "1s",
                      "relay.standby.dead-peer-timeout", "6s",
                      // The slot's catalog xmin moves only with a confirmed position past a
                      // running-transactions record; once the rows are in, only a heartbeat
                      // confirms one, and the standby syncs the slot no sooner.
                      "debezium.source.heartbeat.interval.ms", "1000"));
          EventCollector events = fixture.collect(fixture.publicationEvents)) {
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> relay.metric("herald_relay_slot_failover_ready") >= 0);
        long readyBefore = (long) relay.metric("herald_relay_slot_failover_ready");
        List<UUID> before = rows.insert(100, 5);
        events.awaitIds(before, Duration.ofMinutes(2));
        pair.awaitSynchronized(context.slot(), Duration.ofMinutes(2));

        Load load = new Load(rows);
        load.awaitRows(100);
        // Held back: the primary acknowledges (asynchronous standby) and its walsender sends the
        // relay what the standby never gets.
        pair.replicationLink().freeze();
        // Not load.written(): an insert in flight at the freeze may have committed, and reached
        // the standby, before it.
        int atFreeze = load.writtenWhenTheNextInsertStarts();
        load.awaitRows(atFreeze + HELD_ROWS);
        List<UUID> held = load.writtenSince(atFreeze);
        events.awaitIds(held, Duration.ofMinutes(2));
        // The relay comes back only once the new primary has commits of its own: their WAL
        // positions are below the stored offsets (the held WAL is longer than theirs).
        address.freeze();
        pair.primary().stopImmediately();
        pair.promote();
        clients.retarget(addressOf(pair.primary()));
        int atPromotion = load.written();
        load.awaitRows(atPromotion + 20);
        address.retarget(addressOf(pair.primary()));
        address.heal();
        load.awaitRows(atPromotion + 100);
        List<UUID> written = load.stop();

        Set<UUID> onNewPrimary = outboxIds(dataSource);
        // Not awaitIds on every row: skipped rows of the new primary would never come (what the
        // run measures); the last rows written arriving means the stream has caught up.
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> settled(events.poll(), written));
        events.drain(Duration.ofSeconds(3));
        Set<String> inKafka = events.ids();
        List<UUID> lost =
            onNewPrimary.stream().filter(id -> !inKafka.contains(id.toString())).toList();
        Set<UUID> acknowledged = new HashSet<>(before);
        acknowledged.addAll(written);
        List<String> phantoms =
            inKafka.stream().filter(id -> !onNewPrimary.contains(UUID.fromString(id))).toList();
        List<UUID> lostByFailover =
            acknowledged.stream().filter(id -> !onNewPrimary.contains(id)).toList();
        System.out.printf(
            "FailoverRun (without synchronized_standby_slots, the standby held back for %d rows):"
                + " failover_ready=%d; %d rows acknowledged, %d of them missing on the new primary"
                + " (asynchronous standby); %d phantom events; %d rows on the new primary, %d of"
                + " them never reached Kafka; %d duplicates; %d inserts failed during the"
                + " failover%n",
            held.size(),
            readyBefore,
            acknowledged.size(),
            lostByFailover.size(),
            phantoms.size(),
            onNewPrimary.size(),
            lost.size(),
            events.duplicates(),
            load.failures());
        if (load.lastFailure() != null) {
          System.out.println("FailoverRun: the last failed insert: " + load.lastFailure());
        }
        return new Outcome(
            readyBefore, held, lost, phantoms, relay.process().isAlive(), relay.process().log());
      }
    }
  }

  /** Whether the last rows written after the promotion reached Kafka (the stream caught up). */
  private static boolean settled(List<ReceivedEvent> received, List<UUID> written) {
    Set<String> ids = new HashSet<>();
    received.forEach(event -> ids.add(event.headers().get("id")));
    return written.subList(Math.max(0, written.size() - 5), written.size()).stream()
        .allMatch(id -> ids.contains(id.toString()));
  }

  record Outcome(
      long readyBefore,
      List<UUID> held,
      List<UUID> lost,
      List<String> phantoms,
      boolean relayAlive,
      String relayLog) {}

  /**
   * Small transactions through the moving address, on threads of their own (not the common pool,
   * which has one thread on two cores); a failed one is not counted as written. Each insert has a
   * deadline: one of the runs saw an insert hang through the failover past the driver's socket
   * timeout, and the client's hung connection is not what the test is about (an insert that commits
   * late is still judged, through the new primary's outbox).
   */
  private static final class Load {
    private static final Duration INSERT_DEADLINE = Duration.ofSeconds(15);

    private final List<UUID> written = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicReference<Exception> lastFailure = new AtomicReference<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicReference<CompletableFuture<Integer>> mark = new AtomicReference<>();
    private final ExecutorService inserts =
        Executors.newCachedThreadPool(
            runnable -> Thread.ofPlatform().name("failover-insert").daemon().unstarted(runnable));

    Load(OutboxRows rows) {
      Thread.ofPlatform()
          .name("failover-load")
          .daemon()
          .start(
              () -> {
                try {
                  while (!stop.get()) {
                    CompletableFuture<Integer> marked = mark.getAndSet(null);
                    if (marked != null) {
                      marked.complete(written());
                    }
                    Future<List<UUID>> insert = inserts.submit(() -> rows.insert(5, 5));
                    try {
                      List<UUID> ids =
                          insert.get(INSERT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                      synchronized (written) {
                        written.addAll(ids);
                      }
                    } catch (ExecutionException | TimeoutException e) {
                      // The primary is gone or not yet writable: this one was not committed.
                      insert.cancel(true);
                      failures.incrementAndGet();
                      lastFailure.set(e);
                      Thread.sleep(200);
                    }
                    Thread.sleep(20);
                  }
                  done.complete(null);
                } catch (InterruptedException e) {
                  done.completeExceptionally(e);
                } finally {
                  inserts.shutdownNow();
                }
              });
    }

    int written() {
      synchronized (written) {
        return written.size();
      }
    }

    /**
     * The count of rows written when the next insert starts: every row after it was inserted after
     * this call (inserts run one at a time).
     */
    int writtenWhenTheNextInsertStarts() throws Exception {
      CompletableFuture<Integer> next = new CompletableFuture<>();
      mark.set(next);
      return next.get(1, TimeUnit.MINUTES);
    }

    /** The rows written after the first {@code count}. */
    List<UUID> writtenSince(int count) {
      synchronized (written) {
        return List.copyOf(written.subList(count, written.size()));
      }
    }

    int failures() {
      return failures.get();
    }

    void awaitRows(int count) {
      try {
        Awaitility.await()
            .atMost(Duration.ofMinutes(2))
            .failFast("the load stopped", done::isDone)
            .until(() -> written() >= count);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(
            "the load wrote "
                + written()
                + " of "
                + count
                + " rows within 2 minutes; "
                + failures.get()
                + " inserts failed, the last: "
                + lastFailure.get(),
            e);
      }
    }

    Exception lastFailure() {
      return lastFailure.get();
    }

    List<UUID> stop() throws Exception {
      stop.set(true);
      done.get(1, TimeUnit.MINUTES);
      synchronized (written) {
        return List.copyOf(written);
      }
    }
  }

  private static Set<UUID> outboxIds(PGSimpleDataSource dataSource) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement("SELECT id FROM writer.outbox");
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        ids.add(result.getObject(1, UUID.class));
      }
    }
    return ids;
  }

  private static InetSocketAddress addressOf(PostgresServer server) {
    return new InetSocketAddress("127.0.0.1", server.port());
  }

  private static PGSimpleDataSource dataSource(int port, PostgresServer server) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setServerNames(new String[] {"127.0.0.1"});
    dataSource.setPortNumbers(new int[] {port});
    dataSource.setDatabaseName(DATABASE);
    dataSource.setUser(server.user());
    dataSource.setPassword(server.password());
    dataSource.setConnectTimeout(5);
    dataSource.setSocketTimeout(10);
    dataSource.setLoginTimeout(10);
    return dataSource;
  }
}
