package io.herald.consumer.delivery;

import io.herald.common.event.PublicationKey;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A delivery queue in memory for dispatcher and reconciler tests: hands out the claims it is given,
 * records every transition asked of it, and can refuse (fence) or fail on request. Thread-safe.
 */
public final class FakeDeliveryQueue implements DeliveryQueue {

  /** A transition the queue was asked to record for a claim, with the attempt behind it. */
  public record Completed(ClaimedDelivery claim, Transition transition, Attempt attempt) {}

  /** A bulk settlement of unclaimed UNCERTAIN deliveries. */
  public record Settled(
      String destination, int minAttempts, int maxAttemptsExclusive, Transition transition) {}

  /** A lookup claim request. */
  public record UncertainClaim(String destination, Duration lease, Duration grace) {}

  /** Due deliveries, claimed by the destination of their key, in order. */
  public final Queue<ClaimedDelivery> due = new ArrayDeque<>();

  /** The destination of every claim statement, in order. */
  public final List<String> claimCalls = Collections.synchronizedList(new ArrayList<>());

  public final Queue<ClaimedDelivery> uncertain = new ArrayDeque<>();
  public final List<Completed> completed = Collections.synchronizedList(new ArrayList<>());
  public final List<Settled> settled = Collections.synchronizedList(new ArrayList<>());
  public final List<UncertainClaim> uncertainClaims =
      Collections.synchronizedList(new ArrayList<>());
  public final List<Transition> expiries = Collections.synchronizedList(new ArrayList<>());
  public final List<DeliverySnapshot> expired = new ArrayList<>();
  public final Map<DeliveryState, Long> counts = new EnumMap<>(DeliveryState.class);
  public final AtomicInteger claimFailures = new AtomicInteger();

  /** Every renewal asked for: the tokens of the claims to renew. */
  public final List<Map<UUID, Long>> renewals = Collections.synchronizedList(new ArrayList<>());

  /** Claims whose renewal is refused (taken over). */
  public final Set<UUID> takenOver = Collections.synchronizedSet(new HashSet<>());

  public final AtomicInteger renewFailures = new AtomicInteger();
  public volatile boolean fenceEverything;

  /** The size of every group {@link #completeAll} was asked to record, in order. */
  public final List<Integer> groups = Collections.synchronizedList(new ArrayList<>());

  /** While set, {@link #completeAll} waits for it first: a slow recording transaction. */
  public volatile CountDownLatch recordingGate;

  /** Claims whose result the database refuses (a constraint): a group holding one fails whole. */
  public final Set<UUID> refused = Collections.synchronizedSet(new HashSet<>());

  /** Claims whose result releases a later delivery held back behind it (guarantee 5). */
  public final Set<UUID> releasingLater = Collections.synchronizedSet(new HashSet<>());

  /** Whether {@link #completeAll} fails as an unreachable database does. */
  public volatile boolean recordingUnavailable;

  public volatile int countCalls;
  public volatile int finishedCountCalls;
  public volatile Duration finishedCountTakes = Duration.ZERO;

  @Override
  public Set<UUID> renewLeases(String owner, Map<UUID, Long> tokens, Duration horizon)
      throws SQLException {
    renewals.add(Map.copyOf(tokens));
    if (renewFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new SQLException("database unavailable (fake)", "08006");
    }
    Set<UUID> renewed = new HashSet<>(tokens.keySet());
    renewed.removeAll(takenOver);
    return renewed;
  }

  @Override
  public synchronized List<ClaimedDelivery> claimDue(
      String destination, String owner, int limit, Duration lease) throws SQLException {
    if (claimFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new SQLException("database unavailable (fake)", "08006");
    }
    List<ClaimedDelivery> claims = new ArrayList<>();
    Iterator<ClaimedDelivery> waiting = due.iterator();
    while (claims.size() < limit && waiting.hasNext()) {
      ClaimedDelivery next = waiting.next();
      if (next.key().destination().equals(destination)) {
        claims.add(next);
        waiting.remove();
      }
    }
    claimCalls.add(destination);
    return claims;
  }

  @Override
  public Optional<DeliverySnapshot> complete(
      ClaimedDelivery claim, Transition transition, Attempt attempt) {
    completed.add(new Completed(claim, transition, attempt));
    return fenceEverything ? Optional.empty() : Optional.of(snapshot(claim, transition.to()));
  }

  /** As one transaction would: all or nothing. */
  @Override
  public List<Optional<Recorded>> completeAll(List<Completion> completions) throws SQLException {
    groups.add(completions.size());
    CountDownLatch gate = recordingGate;
    if (gate != null) {
      try {
        if (!gate.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the recording gate was never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted (fake)", "57014", e);
      }
    }
    if (recordingUnavailable) {
      throw new SQLException("database unavailable (fake)", "08006");
    }
    for (Completion completion : completions) {
      if (refused.contains(completion.claim().id())) {
        throw new SQLException("violates check constraint (fake)", "23514");
      }
    }
    List<Optional<Recorded>> results = new ArrayList<>();
    for (Completion completion : completions) {
      boolean releasing = releasingLater.contains(completion.claim().id());
      results.add(
          complete(completion.claim(), completion.transition(), completion.attempt())
              .map(delivery -> new Recorded(delivery, releasing)));
    }
    return results;
  }

  @Override
  public synchronized List<DeliverySnapshot> expireLeases(int limit, Transition transition) {
    expiries.add(transition);
    List<DeliverySnapshot> batch =
        new ArrayList<>(expired.subList(0, Math.min(limit, expired.size())));
    expired.subList(0, batch.size()).clear();
    return batch;
  }

  @Override
  public List<DeliverySnapshot> settleUncertain(
      String destination,
      int minAttempts,
      int maxAttemptsExclusive,
      Duration firstAttemptWithin,
      Duration firstAttemptPast,
      Transition transition,
      int limit) {
    settled.add(new Settled(destination, minAttempts, maxAttemptsExclusive, transition));
    return List.of();
  }

  @Override
  public synchronized List<ClaimedDelivery> claimUncertain(
      String destination, String owner, int limit, Duration lease, Duration grace) {
    uncertainClaims.add(new UncertainClaim(destination, lease, grace));
    List<ClaimedDelivery> claims = new ArrayList<>();
    while (claims.size() < limit && !uncertain.isEmpty()) {
      claims.add(uncertain.poll());
    }
    return claims;
  }

  @Override
  public synchronized Map<DeliveryState, Long> countOpenByState() {
    countCalls++;
    return counts(false);
  }

  @Override
  public synchronized Map<DeliveryState, Long> countFinishedByState() {
    finishedCountCalls++;
    try {
      // The time a scan of a large table takes: the reconciler spaces the count out by it.
      Thread.sleep(finishedCountTakes.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return counts(true);
  }

  private Map<DeliveryState, Long> counts(boolean finished) {
    Map<DeliveryState, Long> of = new EnumMap<>(DeliveryState.class);
    counts.forEach(
        (state, count) -> {
          if (state.isFinal() == finished) {
            of.put(state, count);
          }
        });
    return of;
  }

  @Override
  public synchronized Map<DeliveryState, Long> oldestUnsettledSeconds() {
    return Map.of();
  }

  /**
   * A claim of a delivery of {@code destination} in {@code state}, at its {@code attempts}-th
   * attempt.
   */
  public static ClaimedDelivery claim(
      String destination, DeliveryState state, int attempts, boolean everUncertain) {
    return new ClaimedDelivery(
        UUID.randomUUID(),
        UUID.randomUUID(),
        new PublicationKey("t1", "a-1", "r-1", destination),
        "key-1",
        "{\"title\":\"T\"}",
        7,
        attempts,
        null,
        null,
        everUncertain ? Instant.parse("2026-01-01T00:00:00Z") : null,
        state);
  }

  public static DeliverySnapshot snapshot(ClaimedDelivery claim, DeliveryState state) {
    PublicationKey key = claim.key();
    return new DeliverySnapshot(
        claim.id(),
        claim.jobId(),
        key.tenant(),
        key.articleId(),
        key.revisionId(),
        key.destination(),
        state,
        null,
        claim.attempts(),
        null,
        null);
  }

  @Override
  public List<Unsettled> unsettledByDestination() {
    return List.of();
  }
}
