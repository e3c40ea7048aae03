package io.herald.consumer.delivery;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The claim-and-transition side of the delivery table, as the dispatcher and the reconciler use it:
 * claim due or uncertain work, record the transition the delivery policy decided, expire leases,
 * settle uncertain deliveries in bulk. {@link Deliveries} is the implementation; tests use
 * hand-written fakes.
 *
 * <p>Implementations are thread-safe; every change writes its status event in its transaction.
 */
public interface DeliveryQueue {

  /** Claims up to {@code limit} due deliveries of {@code destination} for {@code owner}. */
  List<ClaimedDelivery> claimDue(String destination, String owner, int limit, Duration lease)
      throws SQLException;

  /**
   * Records {@code transition} for a claim, with its status event when announced, if the claim is
   * still current; records {@code attempt} (the call that led to it) in the same transaction either
   * way.
   *
   * @return the delivery after the transition, or empty when the claim was fenced off (its lease
   *     expired and the row was taken over): the result is then discarded, the attempt kept
   */
  Optional<DeliverySnapshot> complete(ClaimedDelivery claim, Transition transition, Attempt attempt)
      throws SQLException;

  /**
   * Records several claim holders' results, each as {@link #complete} would and each fenced by its
   * own claim (a fenced one does not hold the others back), in as few transactions as the
   * implementation can ({@link Deliveries}: one). This default records them one by one; it cannot
   * tell whether a result released a later delivery, and says each may have.
   *
   * @return per completion, in their order: the delivery after it, or empty as {@link #complete}
   */
  default List<Optional<Recorded>> completeAll(List<Completion> completions) throws SQLException {
    List<Optional<Recorded>> results = new ArrayList<>(completions.size());
    for (Completion completion : completions) {
      results.add(
          complete(completion.claim(), completion.transition(), completion.attempt())
              .map(delivery -> new Recorded(delivery, true)));
    }
    return results;
  }

  /**
   * Extends to {@code now() + horizon} the dispatch claims of {@code owner} whose token is still
   * the one given ({@code tokens}: delivery id to claim token) and whose lease has not yet ended:
   * one statement for all of them. An expired or taken-over claim is never revived.
   *
   * @return the ids of the claims renewed
   */
  Set<UUID> renewLeases(String owner, Map<UUID, Long> tokens, Duration horizon) throws SQLException;

  /** Records {@code transition} (the policy's rule for an expired lease) for expired claims. */
  List<DeliverySnapshot> expireLeases(int limit, Transition transition) throws SQLException;

  /**
   * Applies {@code transition} to up to {@code limit} unclaimed UNCERTAIN deliveries of {@code
   * destination} with {@code minAttempts <= attempts < maxAttemptsExclusive} whose first attempt
   * was less than {@code firstAttemptWithin} ago and at least {@code firstAttemptPast} ago (each
   * null: no bound).
   */
  List<DeliverySnapshot> settleUncertain(
      String destination,
      int minAttempts,
      int maxAttemptsExclusive,
      Duration firstAttemptWithin,
      Duration firstAttemptPast,
      Transition transition,
      int limit)
      throws SQLException;

  /** Leases UNCERTAIN deliveries, uncertain for at least {@code grace}, for a remote lookup. */
  List<ClaimedDelivery> claimUncertain(
      String destination, String owner, int limit, Duration lease, Duration grace)
      throws SQLException;

  /** Number of deliveries per state that is not final (states without rows are absent). */
  Map<DeliveryState, Long> countOpenByState() throws SQLException;

  /** Number of deliveries per final state (states without rows are absent): a scan of the bulk. */
  Map<DeliveryState, Long> countFinishedByState() throws SQLException;

  /**
   * Age in seconds of the oldest delivery in each unsettled state (UNCERTAIN, NEEDS_RECONCILIATION)
   * since it became uncertain, by the database's clock; states without rows are absent.
   */
  Map<DeliveryState, Long> oldestUnsettledSeconds() throws SQLException;

  /**
   * Per destination and unsettled state (UNCERTAIN, NEEDS_RECONCILIATION): the count and the age of
   * the oldest first attempt; pairs without deliveries are absent.
   */
  List<Unsettled> unsettledByDestination() throws SQLException;
}
