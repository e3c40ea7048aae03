package io.herald.consumer.policy;

import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.LookupResult;
import io.herald.consumer.destination.Outcome;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The delivery state machine of {@code docs/design.md} ("Delivery states"), as one pure function:
 * given a delivery's state and what happened to it (a destination's answer, a lookup's answer, an
 * expired lease, a reconciliation round, an operator's decision), {@link #decide} says what comes
 * next: a {@link Decision.Move} to record, a lookup to make or wait for, or a refusal with its
 * reason. The dispatcher, the reconciler and the operator actions only do the I/O around it.
 *
 * <pre>{@code
 * DeliveryPolicy policy = new DeliveryPolicy(5, Duration.ofSeconds(30), backoff::delay);
 * Decision next = policy.decide(claim.state(), new Input.Dispatched(outcome, claim.attempts(),
 *     claim.wasEverUncertain()));
 * }</pre>
 *
 * <p>No I/O, no clock: times come in as durations. The {@link RetryDelay} is the one injected
 * effect (backoff jitter). Thread-safe if the retry delay is. Arguments must not be null.
 */
public final class DeliveryPolicy {

  /** The backoff before a retriable failure is tried again. */
  @FunctionalInterface
  public interface RetryDelay {
    /**
     * @param attempt the attempt that just failed, from 1
     * @param retryAfter the destination's hint, or null
     */
    Duration delay(int attempt, Duration retryAfter);
  }

  /** What happened to a delivery. */
  public sealed interface Input {

    /**
     * A destination answered the claim holder's publish call.
     *
     * @param attempts attempts so far, this one included
     * @param everUncertain whether an earlier attempt of this delivery was uncertain
     * @param breakerHeldFor how long the destination's circuit breaker still holds its deliveries
     *     after this answer (zero when closed): a retry is not due before it ends
     */
    record Dispatched(Outcome outcome, int attempts, boolean everUncertain, Duration breakerHeldFor)
        implements Input {
      public Dispatched {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(breakerHeldFor, "breakerHeldFor");
      }

      /** An answer at a destination whose breaker is closed. */
      public Dispatched(Outcome outcome, int attempts, boolean everUncertain) {
        this(outcome, attempts, everUncertain, Duration.ZERO);
      }
    }

    /**
     * A dispatcher holds a fresh claim and is about to send: may it? At a destination with a key, a
     * delivery whose earlier attempt may have taken effect is resent only while its first attempt
     * is inside the destination's resend window; after it the key protects nothing.
     *
     * @param everUncertain whether an earlier attempt of this delivery was uncertain
     * @param sinceFirstAttempt how long ago the delivery's first attempt (of its current series)
     *     was
     */
    record Claimed(Capabilities destination, boolean everUncertain, Duration sinceFirstAttempt)
        implements Input {
      public Claimed {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(sinceFirstAttempt, "sinceFirstAttempt");
      }
    }

    /** The reconciler's lookup by external reference answered. */
    record LookedUp(LookupResult result, Capabilities destination, int attempts) implements Input {
      public LookedUp {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(destination, "destination");
      }
    }

    /** A claim's lease ran out before its holder recorded a result. */
    record LeaseExpired() implements Input {}

    /**
     * A reconciliation round found the delivery with nobody holding it.
     *
     * @param uncertainFor how long the delivery has been uncertain
     * @param sinceFirstAttempt how long ago its first attempt (of its current series) was
     */
    record Reconcile(
        Capabilities destination, int attempts, Duration uncertainFor, Duration sinceFirstAttempt)
        implements Input {
      public Reconcile {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(uncertainFor, "uncertainFor");
        Objects.requireNonNull(sinceFirstAttempt, "sinceFirstAttempt");
      }

      /** A delivery whose first attempt was as long ago as it has been uncertain. */
      public Reconcile(Capabilities destination, int attempts, Duration uncertainFor) {
        this(destination, attempts, uncertainFor, uncertainFor);
      }
    }

    /**
     * An operator's decision.
     *
     * @param remoteId the article's id at the destination ({@code MARK_PUBLISHED} only)
     * @param destinationConfigured whether this consumer has a configuration for the delivery's
     *     destination: an {@code UNKNOWN_DESTINATION} delivery is retried only once it has, else it
     *     would wait {@code PENDING} for a dispatcher that never comes
     */
    record Operator(
        OperatorAction action,
        String remoteId,
        String actor,
        String reason,
        boolean destinationConfigured)
        implements Input {
      public Operator {
        Objects.requireNonNull(action, "action");
      }

      /** A decision about a delivery whose destination is configured. */
      public Operator(OperatorAction action, String remoteId, String actor, String reason) {
        this(action, remoteId, actor, reason, true);
      }
    }
  }

  /** What comes next. */
  public sealed interface Decision {

    /** Record this change (with its status event when {@link Transition#announced()}). */
    record Move(Transition transition) implements Decision {
      public Move {
        Objects.requireNonNull(transition, "transition");
      }
    }

    /** Ask the destination whether the article exists (lease it for a lookup). */
    record LookUp() implements Decision {}

    /** Call the destination: the claimed delivery may be sent. */
    record Send() implements Decision {}

    /** Nothing yet: ask again once {@code remaining} has passed. */
    record Wait(Duration remaining) implements Decision {}

    /** The input does not apply to the delivery in its state; nothing changes. */
    record Refuse(String reason) implements Decision {}

    /** The transition of a {@link Move}; anything else is a caller's bug. */
    default Transition transition() {
      if (this instanceof Move move) {
        return move.transition();
      }
      throw new IllegalStateException("Expected a state change, the policy decided " + this);
    }
  }

  /**
   * What the reconciler does with unclaimed UNCERTAIN deliveries at one destination whose attempt
   * count is in {@code [minAttempts, maxAttemptsExclusive)} and whose first attempt was less than
   * {@code firstAttemptWithin} ago (null: any) and at least {@code firstAttemptPast} ago (null:
   * any): a {@link Decision.Move} applied to all of them at once, or a {@link Decision.LookUp} once
   * each is uncertain for the lookup grace.
   */
  public record UncertainRule(
      int minAttempts,
      int maxAttemptsExclusive,
      Duration firstAttemptWithin,
      Duration firstAttemptPast,
      Decision decision) {

    /** A rule for every age of the first attempt. */
    public UncertainRule(int minAttempts, int maxAttemptsExclusive, Decision decision) {
      this(minAttempts, maxAttemptsExclusive, null, null, decision);
    }

    /** Whether the rule's attempt range holds {@code attempts} (whatever the age). */
    boolean covers(int attempts) {
      return attempts >= minAttempts && attempts < maxAttemptsExclusive;
    }

    boolean covers(int attempts, Duration sinceFirstAttempt) {
      return covers(attempts)
          && (firstAttemptWithin == null || sinceFirstAttempt.compareTo(firstAttemptWithin) < 0)
          && (firstAttemptPast == null || sinceFirstAttempt.compareTo(firstAttemptPast) >= 0);
    }
  }

  private static final Map<OperatorAction, Set<DeliveryState>> OPERATOR_FROM =
      new EnumMap<>(
          Map.of(
              OperatorAction.MARK_PUBLISHED,
              EnumSet.of(DeliveryState.NEEDS_RECONCILIATION, DeliveryState.UNCERTAIN),
              OperatorAction.RETRY,
              EnumSet.of(DeliveryState.NEEDS_RECONCILIATION, DeliveryState.UNKNOWN_DESTINATION),
              OperatorAction.ABANDON,
              EnumSet.of(DeliveryState.NEEDS_RECONCILIATION, DeliveryState.UNKNOWN_DESTINATION)));

  private static final Set<DeliveryState> CLAIMABLE =
      Collections.unmodifiableSet(EnumSet.of(DeliveryState.PENDING, DeliveryState.RETRY_WAIT));

  private final int maxAttempts;
  private final Duration lookupRetry;
  private final RetryDelay retryDelay;

  /**
   * @param maxAttempts attempts before a retriable failure becomes final ({@code
   *     consumer.dispatch.max-attempts})
   * @param lookupRetry pause before a lookup that got no answer is tried again ({@code
   *     consumer.reconcile.lookup-retry})
   */
  public DeliveryPolicy(int maxAttempts, Duration lookupRetry, RetryDelay retryDelay) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException(
          "consumer.dispatch.max-attempts must be at least 1: " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    this.lookupRetry = Objects.requireNonNull(lookupRetry, "lookupRetry");
    this.retryDelay = Objects.requireNonNull(retryDelay, "retryDelay");
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** What follows {@code input} for a delivery in {@code state}. */
  public Decision decide(DeliveryState state, Input input) {
    Objects.requireNonNull(state, "state");
    return switch (input) {
      case Input.Dispatched dispatched ->
          state == DeliveryState.DISPATCHING
              ? move(dispatched(dispatched))
              : refuse("a destination's answer is recorded only under a dispatch claim", state);
      case Input.Claimed claimed ->
          state == DeliveryState.DISPATCHING
              ? claimed(claimed)
              : refuse("only a dispatch claim is sent", state);
      case Input.LookedUp lookedUp ->
          state == DeliveryState.UNCERTAIN
              ? move(lookedUp(lookedUp))
              : refuse("a lookup settles only an UNCERTAIN delivery", state);
      case Input.LeaseExpired expired ->
          state == DeliveryState.DISPATCHING
              // The holder may have sent the request: never PENDING, always uncertain.
              ? move(Transition.uncertain("claim lease expired before a result was recorded"))
              : refuse("only a dispatch claim has a lease that expires", state);
      case Input.Reconcile reconcile ->
          state == DeliveryState.UNCERTAIN
              ? reconcile(reconcile)
              : refuse("only an UNCERTAIN delivery is reconciled", state);
      case Input.Operator operator -> operator(state, operator);
    };
  }

  /**
   * The state a new delivery starts in: {@code PENDING} (no event) when this consumer has a
   * configuration for its destination; otherwise {@code UNKNOWN_DESTINATION}, announced, so the
   * writer's view and the monitor show what would else wait unseen for ever (nothing claims a
   * destination without a dispatcher). Static: the rule needs none of the policy's settings.
   *
   * @param destination the delivery's destination
   * @param configured the destinations this consumer has {@code consumer.destinations.*} for
   */
  public static Transition received(String destination, Set<String> configured) {
    Objects.requireNonNull(destination, "destination");
    if (configured.contains(destination)) {
      return Transition.received();
    }
    return Transition.unknownDestination(
        "destination '"
            + destination
            + "' is not configured at this consumer (no consumer.destinations."
            + destination
            + ".*; configured: "
            + String.join(", ", new TreeSet<>(configured))
            + "): not sent; configure it and retry the delivery, or abandon it");
  }

  /**
   * The states a due delivery is claimed from for dispatch ({@code -> DISPATCHING}, by the claim
   * statement). A due {@code RETRY_WAIT} is claimed directly, so {@code RETRY_WAIT -> PENDING}
   * costs no write.
   */
  public static Set<DeliveryState> claimable() {
    return CLAIMABLE;
  }

  /** The states an operator's {@code action} applies to. */
  public Set<DeliveryState> allowedFrom(OperatorAction action) {
    return Collections.unmodifiableSet(OPERATOR_FROM.get(action));
  }

  /**
   * How unclaimed UNCERTAIN deliveries at a destination with {@code destination}'s capabilities are
   * settled, by attempts used; the rules cover every count from 0 without overlap.
   */
  public List<UncertainRule> uncertainRules(Capabilities destination) {
    if (destination.honoursIdempotencyKey()) {
      UncertainRule exhausted =
          new UncertainRule(
              maxAttempts,
              Integer.MAX_VALUE,
              move(
                  Transition.needsReconciliation(
                      "uncertain after "
                          + maxAttempts
                          + " attempts at a destination that honours idempotency keys: an"
                          + " operator decides")));
      Transition resend =
          Transition.pending(
              "uncertain outcome; the destination honours idempotency keys: retry with"
                  + " the same key");
      if (!destination.keyExpires()) {
        return List.of(exhausted, new UncertainRule(0, maxAttempts, move(resend)));
      }
      Duration window = destination.resendWindow();
      // Past the window the key protects nothing: a resend could create a second article.
      Decision past =
          destination.supportsLookup()
              ? new Decision.LookUp()
              : move(Transition.needsReconciliation(pastWindow(window) + ": an operator decides"));
      // The lookup rule last: the reconciler settles the rules in order, so the deliveries still
      // inside the window are resent before the lookup claims what is left.
      return List.of(
          exhausted,
          new UncertainRule(0, maxAttempts, window, null, move(resend)),
          new UncertainRule(0, maxAttempts, null, window, past));
    }
    if (destination.supportsLookup()) {
      return List.of(new UncertainRule(0, Integer.MAX_VALUE, new Decision.LookUp()));
    }
    return List.of(
        new UncertainRule(
            0,
            Integer.MAX_VALUE,
            move(
                Transition.needsReconciliation(
                    "uncertain outcome; the destination offers neither idempotency keys nor"
                        + " lookup: an operator decides"))));
  }

  private static String pastWindow(Duration window) {
    return "the first attempt is older than the destination's resend window ("
        + window
        + ", its dedup window less one call): the key no longer protects a resend";
  }

  private Decision claimed(Input.Claimed claimed) {
    Capabilities destination = claimed.destination();
    // Without a key a resend follows only a proof that nothing was created (a lookup's "not
    // found", an operator's retry) or answers that nothing was processed: always safe. With one,
    // so is a delivery no attempt of which may have taken effect.
    if (!destination.honoursIdempotencyKey()
        || !claimed.everUncertain()
        || claimed.sinceFirstAttempt().compareTo(destination.resendWindow()) < 0) {
      return new Decision.Send();
    }
    String why =
        pastWindow(destination.resendWindow())
            + " (first attempt "
            + claimed.sinceFirstAttempt()
            + " ago, an earlier attempt was uncertain)";
    return move(
        destination.supportsLookup()
            ? Transition.uncertain(why + ": not sent, looked up instead")
            : Transition.needsReconciliation(why + ": not sent, an operator decides"));
  }

  private Transition dispatched(Input.Dispatched dispatched) {
    return switch (dispatched.outcome()) {
      case Outcome.Published published -> Transition.published(published.remoteId(), null);
      case Outcome.Permanent permanent -> Transition.failed("rejected: " + permanent.reason());
      case Outcome.Uncertain uncertain -> Transition.uncertain(uncertain.reason());
      case Outcome.ReplayedError replayed ->
          Transition.needsReconciliation(
              replayed.reason()
                  + ": the destination gives every repeat of the key this answer, so a resend"
                  + " cannot succeed, and whether the first request took effect is unknown; an"
                  + " operator decides");
      case Outcome.Retry retry -> {
        int attempts = dispatched.attempts();
        if (attempts < maxAttempts) {
          Duration backoff = retryDelay.delay(attempts, retry.retryAfter());
          Duration held = dispatched.breakerHeldFor();
          // An open breaker claims nothing before it ends: due earlier would only say otherwise.
          yield held.compareTo(backoff) > 0
              ? Transition.retryWait(
                  retry.reason() + "; the destination's circuit breaker is open for " + held, held)
              : Transition.retryWait(retry.reason(), backoff);
        }
        String reason = "gave up after " + attempts + " attempts, last: " + retry.reason();
        // An earlier attempt may have created the article: only a person can say it did not.
        yield dispatched.everUncertain()
            ? Transition.needsReconciliation(reason + "; an earlier attempt was uncertain")
            : Transition.failed(reason);
      }
    };
  }

  private Transition lookedUp(Input.LookedUp lookedUp) {
    return switch (lookedUp.result()) {
      case LookupResult.Found found ->
          Transition.published(found.remoteId(), "found by lookup after an uncertain attempt");
      case LookupResult.NotFound notFound ->
          lookedUp.attempts() < maxAttempts
              ? Transition.pending(
                      "lookup found no article "
                          + lookedUp.destination().lookupGrace()
                          + " after the uncertain attempt: safe retry")
                  .withWindowRestarted()
              : Transition.needsReconciliation(
                  "lookup found no article but "
                      + lookedUp.attempts()
                      + " attempts are used up: an operator decides");
      case LookupResult.Unavailable unavailable ->
          Transition.stillUncertain(unavailable.reason(), lookupRetry);
    };
  }

  private Decision reconcile(Input.Reconcile reconcile) {
    for (UncertainRule rule : uncertainRules(reconcile.destination())) {
      if (rule.covers(reconcile.attempts(), reconcile.sinceFirstAttempt())) {
        Duration grace = reconcile.destination().lookupGrace();
        if (rule.decision() instanceof Decision.LookUp
            && reconcile.uncertainFor().compareTo(grace) < 0) {
          return new Decision.Wait(grace.minus(reconcile.uncertainFor()));
        }
        return rule.decision();
      }
    }
    throw new IllegalArgumentException("attempts must not be negative: " + reconcile.attempts());
  }

  private Decision operator(DeliveryState state, Input.Operator operator) {
    OperatorAction action = operator.action();
    Set<DeliveryState> allowed = OPERATOR_FROM.get(action);
    if (!allowed.contains(state)) {
      return new Decision.Refuse(
          action + " applies to " + allowed + " but the delivery is " + state);
    }
    if (action == OperatorAction.RETRY
        && state == DeliveryState.UNKNOWN_DESTINATION
        && !operator.destinationConfigured()) {
      return new Decision.Refuse(
          "RETRY of an UNKNOWN_DESTINATION delivery needs its destination configured at this"
              + " consumer (consumer.destinations.<name>.*, then a restart); until then ABANDON"
              + " applies");
    }
    String reason = "operator " + operator.actor() + ": " + action + ": " + operator.reason();
    return move(
        switch (action) {
          case MARK_PUBLISHED -> Transition.published(operator.remoteId(), reason);
          case RETRY -> Transition.pending(reason).withAttemptsReset().withWindowRestarted();
          case ABANDON -> Transition.abandoned(reason);
        });
  }

  private static Decision move(Transition transition) {
    return new Decision.Move(transition);
  }

  private static Decision refuse(String rule, DeliveryState state) {
    return new Decision.Refuse(rule + "; the delivery is " + state);
  }
}
