package io.herald.runtime.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  /** Refused for something of its own: committed again alone. */
  private static final String CONSTRAINT = "23514";

  /** The database is gone: the whole group fails. */
  private static final String UNAVAILABLE = "08006";

  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stop() {
    callers.shutdownNow();
  }

  /**
   * A transaction that waits at its gate, answers "ok:" + item, and refuses any group holding
   * "bad".
   */
  private static class Store implements GroupCommit.Committer<String, String, SQLException> {
    final List<List<String>> groups = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger entered = new AtomicInteger();
    volatile CountDownLatch gate = new CountDownLatch(0);
    volatile String failWith;

    @Override
    public List<String> commit(List<String> items) throws SQLException {
      entered.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      groups.add(List.copyOf(items));
      if (failWith != null && entered.get() > 1) {
        throw new SQLException("connection lost", failWith);
      }
      if (items.contains("bad")) {
        throw new SQLException("check constraint violated", CONSTRAINT);
      }
      return items.stream().map(item -> "ok:" + item).toList();
    }
  }

  private GroupCommit<String, String, SQLException> groupCommit(
      Store store, int maxItems, int maxInFlight) {
    return new GroupCommit<>(
        store,
        maxItems,
        maxInFlight,
        failure ->
            failure instanceof SQLException e && SqlFailure.classify(e) != SqlFailure.UNAVAILABLE,
        failure -> false,
        sizes::add);
  }

  @Test
  void shouldCommitALoneItemAtOnceInItsOwnTransaction() throws Exception {
    Store store = new Store();

    assertThat(groupCommit(store, 32, 2).submit("a")).isEqualTo("ok:a");
    assertThat(store.groups).containsExactly(List.of("a"));
    assertThat(sizes).containsExactly(1);
  }

  @Test
  void shouldJoinItemsThatArriveWhileEveryCommitterIsBusyIntoOneTransaction() throws Exception {
    Store store = gatedStore();
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 32, 1);

    Future<String> first = holdTheCommitter(store, commit);
    List<Future<String>> waiting = submitAll(commit, "a1", "a2", "a3", "a4", "a5");
    await().atMost(WAIT).until(() -> commit.queued() == 5);
    // Queued behind the one committer: none started a transaction of its own.
    assertThat(store.entered.get()).isEqualTo(1);
    store.gate.countDown();

    assertThat(first.get()).isEqualTo("ok:a0");
    for (int i = 0; i < waiting.size(); i++) {
      assertThat(waiting.get(i).get()).isEqualTo("ok:a" + (i + 1));
    }
    assertThat(store.groups).hasSize(2);
    assertThat(store.groups.get(1)).containsExactlyInAnyOrder("a1", "a2", "a3", "a4", "a5");
    assertThat(sizes).containsExactly(1, 5);
  }

  @Test
  void shouldPutAtMostMaxItemsIntoOneTransactionFirstInFirstOut() throws Exception {
    Store store = gatedStore();
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 2, 1);

    Future<String> first = holdTheCommitter(store, commit);
    List<Future<String>> waiting = queueInOrder(commit, "a1", "a2", "a3", "a4", "a5");
    store.gate.countDown();

    first.get();
    for (Future<String> f : waiting) {
      f.get();
    }
    assertThat(store.groups)
        .containsExactly(List.of("a0"), List.of("a1", "a2"), List.of("a3", "a4"), List.of("a5"));
  }

  @Test
  void shouldFailOnlyTheItemTheDatabaseRefusesWhenItsGroupIsCommittedAgainAlone() throws Exception {
    Store store = gatedStore();
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 32, 1);

    Future<String> first = holdTheCommitter(store, commit);
    List<Future<String>> waiting = queueInOrder(commit, "a1", "bad", "a2");
    store.gate.countDown();

    assertThat(first.get()).isEqualTo("ok:a0");
    assertThat(waiting.get(0).get()).isEqualTo("ok:a1");
    assertThatThrownBy(() -> waiting.get(1).get())
        .hasCauseInstanceOf(SQLException.class)
        .hasMessageContaining("check constraint");
    assertThat(waiting.get(2).get()).isEqualTo("ok:a2");
    assertThat(store.groups)
        .containsExactly(
            List.of("a0"),
            List.of("a1", "bad", "a2"),
            List.of("a1"),
            List.of("bad"),
            List.of("a2"));
  }

  @Test
  void shouldAnswerEveryCallerWhenTheCommitterThrowsAnErrorWhileRetryingAlone() throws Exception {
    Store store =
        new Store() {
          @Override
          public List<String> commit(List<String> items) throws SQLException {
            if (items.equals(List.of("boom"))) {
              throw new AssertionError("not an SQL failure: a bug or the JVM's");
            }
            return super.commit(items.contains("boom") ? List.of("bad") : items);
          }
        };
    store.gate = new CountDownLatch(1);
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 32, 1);

    Future<String> first = holdTheCommitter(store, commit);
    List<Future<String>> waiting = queueInOrder(commit, "a1", "boom", "a2");
    store.gate.countDown();

    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("ok:a0");
    // Nobody parks forever: every caller has an answer, and the one whose item broke, a failure.
    for (Future<String> f : waiting) {
      try {
        f.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException answered) {
        assertThat(answered.getCause())
            .isInstanceOfAny(AssertionError.class, IllegalStateException.class);
      }
    }
    assertThatThrownBy(() -> waiting.get(1).get()).isInstanceOf(ExecutionException.class);
    assertThat(commit.queued()).isZero();
  }

  @Test
  void shouldFailEveryItemOfAGroupAtOnceWhenTheDatabaseIsUnavailable() throws Exception {
    Store store = gatedStore();
    store.failWith = UNAVAILABLE;
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 32, 1);

    Future<String> first = holdTheCommitter(store, commit);
    List<Future<String>> waiting = submitAll(commit, "a1", "a2");
    await().atMost(WAIT).until(() -> commit.queued() == 2);
    store.gate.countDown();

    assertThat(first.get()).isEqualTo("ok:a0");
    for (Future<String> f : waiting) {
      assertThatThrownBy(f::get).hasCauseInstanceOf(SQLException.class);
    }
    assertThat(store.entered.get()).isEqualTo(2); // the group once, nobody alone
  }

  @Test
  void shouldFailTheItemsQueuedBehindAGroupWhoseFailureWouldMeetThemToo() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger entered = new AtomicInteger();
    GroupCommit.Committer<String, String, SQLException> unavailable =
        items -> {
          entered.incrementAndGet();
          try {
            gate.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new SQLException("connection refused", UNAVAILABLE);
        };
    GroupCommit<String, String, SQLException> commit =
        new GroupCommit<>(unavailable, 32, 1, failure -> false, failure -> true, sizes::add);

    Future<String> first = callers.submit(() -> commit.submit("a0"));
    await().atMost(WAIT).until(() -> entered.get() == 1);
    List<Future<String>> queued = submitAll(commit, "a1", "a2");
    await().atMost(WAIT).until(() -> commit.queued() == 2);
    gate.countDown();

    assertThatThrownBy(first::get).hasCauseInstanceOf(SQLException.class);
    for (Future<String> f : queued) {
      assertThatThrownBy(f::get).hasCauseInstanceOf(SQLException.class);
    }
    // Answered by the first group's failure: no transaction of their own.
    assertThat(entered.get()).isEqualTo(1);
    assertThat(commit.queued()).isZero();
  }

  @Test
  void shouldAnswerACallerInterruptedWhileItWaitsAndKeepItsInterrupt() throws Exception {
    Store store = gatedStore();
    GroupCommit<String, String, SQLException> commit = groupCommit(store, 32, 1);
    AtomicBoolean keptInterrupt = new AtomicBoolean();

    Future<String> first = holdTheCommitter(store, commit);
    Thread[] waiter = new Thread[1];
    Future<String> interrupted =
        callers.submit(
            () -> {
              waiter[0] = Thread.currentThread();
              String result = commit.submit("a1");
              keptInterrupt.set(Thread.currentThread().isInterrupted());
              return result;
            });
    await().atMost(WAIT).until(() -> commit.queued() == 1);
    waiter[0].interrupt();
    store.gate.countDown();

    assertThat(first.get()).isEqualTo("ok:a0");
    assertThat(interrupted.get()).isEqualTo("ok:a1");
    assertThat(keptInterrupt).isTrue();
  }

  @Test
  void shouldAnswerEveryCallerWithItsOwnResultUnderARace() throws Exception {
    LongAdder committed = new LongAdder();
    GroupCommit.Committer<String, String, RuntimeException> store =
        items -> {
          // A transaction's time, so that callers pile up behind the committers.
          long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(20_000, 200_000);
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          committed.add(items.size());
          return items.stream().map(item -> "ok:" + item).toList();
        };
    GroupCommit<String, String, RuntimeException> commit =
        new GroupCommit<>(store, 8, 2, failure -> true, failure -> false, sizes::add);
    int clients = 32;
    int perClient = 100;
    List<Future<Integer>> done = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      done.add(
          callers.submit(
              () -> {
                for (int i = 0; i < perClient; i++) {
                  String item = client + "-" + i;
                  assertThat(commit.submit(item)).isEqualTo("ok:" + item);
                }
                return perClient;
              }));
    }
    int answered = 0;
    for (Future<Integer> f : done) {
      answered += f.get();
    }

    assertThat(answered).isEqualTo(clients * perClient);
    assertThat(committed.sum()).isEqualTo(clients * perClient);
    assertThat(commit.queued()).isZero();
    assertThat(sizes).allMatch(size -> size >= 1 && size <= 8);
    // 32 callers behind 2 committers: items did share transactions.
    assertThat(sizes.size()).isLessThan(clients * perClient);
  }

  /** A store whose transactions wait at the gate until the test opens it. */
  private static Store gatedStore() {
    Store store = new Store();
    store.gate = new CountDownLatch(1);
    return store;
  }

  /** Submits "a0" and waits until its group holds the only committer slot, at the gate. */
  private Future<String> holdTheCommitter(
      Store store, GroupCommit<String, String, SQLException> commit) {
    Future<String> first = callers.submit(() -> commit.submit("a0"));
    await().atMost(WAIT).until(() -> store.entered.get() == 1);
    return first;
  }

  /** Submits each item in turn, each queued before the next is submitted (first in, first out). */
  private List<Future<String>> queueInOrder(
      GroupCommit<String, String, SQLException> commit, String... items) {
    List<Future<String>> waiting = new ArrayList<>();
    for (String item : items) {
      waiting.addAll(submitAll(commit, item));
      int queued = waiting.size();
      await().atMost(WAIT).until(() -> commit.queued() == queued);
    }
    return waiting;
  }

  private List<Future<String>> submitAll(
      GroupCommit<String, String, SQLException> commit, String... items) {
    List<Future<String>> futures = new ArrayList<>();
    for (String item : items) {
      futures.add(callers.submit(() -> commit.submit(item)));
    }
    return futures;
  }
}
