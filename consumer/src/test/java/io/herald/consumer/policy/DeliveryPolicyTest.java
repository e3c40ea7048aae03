package io.herald.consumer.policy;

import static io.herald.consumer.delivery.DeliveryState.ABANDONED;
import static io.herald.consumer.delivery.DeliveryState.DISPATCHING;
import static io.herald.consumer.delivery.DeliveryState.FAILED;
import static io.herald.consumer.delivery.DeliveryState.NEEDS_RECONCILIATION;
import static io.herald.consumer.delivery.DeliveryState.PENDING;
import static io.herald.consumer.delivery.DeliveryState.PUBLISHED;
import static io.herald.consumer.delivery.DeliveryState.RETRY_WAIT;
import static io.herald.consumer.delivery.DeliveryState.UNCERTAIN;
import static io.herald.consumer.delivery.DeliveryState.UNKNOWN_DESTINATION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.herald.consumer.delivery.DeliveryState;
import io.herald.consumer.delivery.Transition;
import io.herald.consumer.destination.LookupResult;
import io.herald.consumer.destination.Outcome;
import io.herald.consumer.policy.DeliveryPolicy.Decision;
import io.herald.consumer.policy.DeliveryPolicy.Input;
import io.herald.consumer.policy.DeliveryPolicy.UncertainRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The delivery state machine of {@code docs/design.md} ("Delivery states" and "The consumer"), one
 * row per transition: the state, what happened, and what the policy decides, written as {@code
 * NEXT_STATE event} (plus {@code in <delay>} when due later, {@code attempts reset}, {@code
 * silently} when no event is written), {@code LOOK_UP}, {@code WAIT <remaining>}, or {@code
 * REFUSED}.
 */
class DeliveryPolicyTest {

  private static final int MAX = 3;
  private static final Duration LOOKUP_RETRY = Duration.ofSeconds(30);
  private static final Duration GRACE = Duration.ofSeconds(10);

  private static final Capabilities IDEMPOTENT = new Capabilities(true, false, GRACE);
  private static final Capabilities LOOKUP = new Capabilities(false, true, GRACE);
  private static final Capabilities BOTH = new Capabilities(true, true, GRACE);
  private static final Capabilities NEITHER = new Capabilities(false, false, GRACE);

  /** Keys forgotten: a resend is safe only while the first attempt is younger than an hour. */
  private static final Duration WINDOW = Duration.ofHours(1);

  private static final Capabilities KEY_WINDOW = new Capabilities(true, false, GRACE, WINDOW);
  private static final Capabilities BOTH_WINDOW = new Capabilities(true, true, GRACE, WINDOW);
  private static final Duration INSIDE = Duration.ofMinutes(59);
  private static final Duration PAST = WINDOW;

  /** A backoff that shows its inputs: attempt n waits n seconds, or the destination's hint. */
  private static final DeliveryPolicy POLICY =
      new DeliveryPolicy(
          MAX,
          LOOKUP_RETRY,
          (attempt, retryAfter) -> retryAfter != null ? retryAfter : Duration.ofSeconds(attempt));

  static Stream<Arguments> transitions() {
    return Stream.of(
        // A destination's answer to a dispatch (the claim holds the delivery in DISPATCHING).
        row(DISPATCHING, dispatched(new Outcome.Published("art-1"), 1), "PUBLISHED event"),
        row(DISPATCHING, dispatched(new Outcome.Permanent("400 invalid"), 1), "FAILED event"),
        row(DISPATCHING, dispatched(new Outcome.Uncertain("read timeout"), 1), "UNCERTAIN event"),
        row(DISPATCHING, dispatched(retry(null), 1), "RETRY_WAIT event in PT1S"),
        row(DISPATCHING, dispatched(retry(null), 2), "RETRY_WAIT event in PT2S"),
        row(DISPATCHING, dispatched(retry(Duration.ofMinutes(1)), 1), "RETRY_WAIT event in PT1M"),
        // Attempts exhausted: failed, unless an earlier attempt may have created the article.
        row(DISPATCHING, dispatched(retry(null), MAX), "FAILED event"),
        row(DISPATCHING, dispatched(retry(null), MAX + 1), "FAILED event"),
        row(
            DISPATCHING,
            dispatchedAfterUncertainty(retry(null), MAX),
            "NEEDS_RECONCILIATION event"),
        row(DISPATCHING, dispatchedAfterUncertainty(retry(null), 1), "RETRY_WAIT event in PT1S"),
        row(
            DISPATCHING,
            dispatchedAfterUncertainty(new Outcome.Published("a"), MAX),
            "PUBLISHED event"),
        // The answer found the destination's circuit breaker open (it may have opened it): the
        // retry is due no earlier than the breaker lets a claim through again.
        row(
            DISPATCHING,
            dispatchedWhileHeld(retry(null), 1, Duration.ofSeconds(30)),
            "RETRY_WAIT event in PT30S"),
        row(
            DISPATCHING,
            dispatchedWhileHeld(retry(Duration.ofMinutes(1)), 1, Duration.ofSeconds(30)),
            "RETRY_WAIT event in PT1M"),
        // An open breaker changes neither the attempt bound nor what an uncertain answer means.
        row(
            DISPATCHING,
            dispatchedWhileHeld(retry(null), MAX, Duration.ofSeconds(30)),
            "FAILED event"),
        row(
            DISPATCHING,
            dispatchedWhileHeld(new Outcome.Uncertain("HTTP 500", 500), 1, Duration.ofSeconds(30)),
            "UNCERTAIN event"),
        // A lease that ran out: the request may have been sent.
        row(DISPATCHING, new Input.LeaseExpired(), "UNCERTAIN event"),
        // A reconciliation round meets an unclaimed UNCERTAIN delivery.
        row(UNCERTAIN, reconcile(IDEMPOTENT, 1, Duration.ZERO), "PENDING event"),
        row(UNCERTAIN, reconcile(IDEMPOTENT, MAX - 1, Duration.ZERO), "PENDING event"),
        row(UNCERTAIN, reconcile(IDEMPOTENT, MAX, Duration.ZERO), "NEEDS_RECONCILIATION event"),
        row(UNCERTAIN, reconcile(BOTH, 1, Duration.ZERO), "PENDING event"),
        row(UNCERTAIN, reconcile(LOOKUP, 1, Duration.ofSeconds(4)), "WAIT PT6S"),
        row(UNCERTAIN, reconcile(LOOKUP, 1, GRACE), "LOOK_UP"),
        row(UNCERTAIN, reconcile(LOOKUP, MAX, Duration.ofMinutes(5)), "LOOK_UP"),
        row(UNCERTAIN, reconcile(NEITHER, 1, Duration.ofHours(1)), "NEEDS_RECONCILIATION event"),
        row(UNCERTAIN, reconcile(NEITHER, 0, Duration.ZERO), "NEEDS_RECONCILIATION event"),
        // A key the destination forgets: inside its window a resend is safe, past it never.
        row(UNCERTAIN, reconcile(KEY_WINDOW, 1, Duration.ZERO, INSIDE), "PENDING event"),
        row(UNCERTAIN, reconcile(KEY_WINDOW, 1, Duration.ZERO, PAST), "NEEDS_RECONCILIATION event"),
        row(
            UNCERTAIN,
            reconcile(KEY_WINDOW, MAX, Duration.ZERO, INSIDE),
            "NEEDS_RECONCILIATION event"),
        row(UNCERTAIN, reconcile(BOTH_WINDOW, 1, Duration.ZERO, INSIDE), "PENDING event"),
        row(UNCERTAIN, reconcile(BOTH_WINDOW, 1, GRACE, PAST), "LOOK_UP"),
        row(UNCERTAIN, reconcile(BOTH_WINDOW, 1, Duration.ofSeconds(4), PAST), "WAIT PT6S"),
        // A fresh dispatch claim: sent, unless an earlier attempt may have taken effect and the
        // key is past its window (then looked up, or an operator decides: never a blind send).
        row(DISPATCHING, claimed(KEY_WINDOW, true, INSIDE), "SEND"),
        row(DISPATCHING, claimed(KEY_WINDOW, true, PAST), "NEEDS_RECONCILIATION event"),
        row(DISPATCHING, claimed(BOTH_WINDOW, true, PAST), "UNCERTAIN event"),
        row(DISPATCHING, claimed(KEY_WINDOW, false, Duration.ofDays(3)), "SEND"),
        row(DISPATCHING, claimed(IDEMPOTENT, true, Duration.ofDays(3)), "SEND"),
        row(DISPATCHING, claimed(LOOKUP, true, Duration.ofDays(3)), "SEND"),
        row(DISPATCHING, claimed(NEITHER, true, Duration.ofDays(3)), "SEND"),
        // A destination that replays the saved error of a key: resending cannot help.
        row(
            DISPATCHING,
            dispatched(new Outcome.ReplayedError("HTTP 500 (replayed)", 500), 1),
            "NEEDS_RECONCILIATION event"),
        // The lookup's answer (the reconciler's claim holds the delivery in UNCERTAIN).
        row(UNCERTAIN, lookedUp(new LookupResult.Found("art-7"), 1), "PUBLISHED event"),
        row(UNCERTAIN, lookedUp(new LookupResult.Found("art-7"), MAX), "PUBLISHED event"),
        row(UNCERTAIN, lookedUp(new LookupResult.NotFound(), MAX - 1), "PENDING event"),
        row(UNCERTAIN, lookedUp(new LookupResult.NotFound(), MAX), "NEEDS_RECONCILIATION event"),
        row(
            UNCERTAIN,
            lookedUp(new LookupResult.Unavailable("503"), 1),
            "UNCERTAIN silently in PT30S"));
  }

  /** Every operator action from every state: the columns are MARK_PUBLISHED, RETRY, ABANDON. */
  static Stream<Arguments> operatorActions() {
    return Stream.of(
            operatorRow(PENDING, "REFUSED", "REFUSED", "REFUSED"),
            operatorRow(DISPATCHING, "REFUSED", "REFUSED", "REFUSED"),
            operatorRow(RETRY_WAIT, "REFUSED", "REFUSED", "REFUSED"),
            operatorRow(UNCERTAIN, "PUBLISHED event", "REFUSED", "REFUSED"),
            operatorRow(
                NEEDS_RECONCILIATION,
                "PUBLISHED event",
                "PENDING event attempts reset",
                "ABANDONED event"),
            // Received for a destination not configured: retried (once configured) or abandoned.
            operatorRow(
                UNKNOWN_DESTINATION, "REFUSED", "PENDING event attempts reset", "ABANDONED event"),
            operatorRow(PUBLISHED, "REFUSED", "REFUSED", "REFUSED"),
            operatorRow(FAILED, "REFUSED", "REFUSED", "REFUSED"),
            operatorRow(ABANDONED, "REFUSED", "REFUSED", "REFUSED"))
        .flatMap(List::stream);
  }

  /** Each automatic input applies to one state only; from every other state it is refused. */
  static Stream<Arguments> refusals() {
    List<Arguments> rows = new ArrayList<>();
    for (DeliveryState state : DeliveryState.values()) {
      if (state != DISPATCHING) {
        rows.add(row(state, dispatched(new Outcome.Published("late"), 1), "REFUSED"));
        rows.add(row(state, new Input.LeaseExpired(), "REFUSED"));
      }
      if (state != DISPATCHING) {
        rows.add(row(state, claimed(KEY_WINDOW, true, PAST), "REFUSED"));
      }
      if (state != UNCERTAIN) {
        rows.add(row(state, lookedUp(new LookupResult.Found("late"), 1), "REFUSED"));
        rows.add(row(state, reconcile(IDEMPOTENT, 1, Duration.ZERO), "REFUSED"));
      }
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @MethodSource({"transitions", "operatorActions", "refusals"})
  void shouldDecideAsTheDesignTableSays(DeliveryState state, Input input, String expected) {
    assertEquals(expected, describe(POLICY.decide(state, input)));
  }

  /** Intake: the destination, the destinations this consumer configures, the first state. */
  static Stream<Arguments> received() {
    Set<String> configured = Set.of("dest-a", "dest-b");
    return Stream.of(
        Arguments.of("dest-a", configured, "PENDING silently"),
        Arguments.of("dest-b", configured, "PENDING silently"),
        // A typo: destinations are compared exactly, as the dispatcher claims them.
        Arguments.of("dest-A", configured, "UNKNOWN_DESTINATION event"),
        Arguments.of("dest-z", configured, "UNKNOWN_DESTINATION event"),
        Arguments.of("dest-a", Set.of(), "UNKNOWN_DESTINATION event"));
  }

  @ParameterizedTest(name = "{0} at {1} -> {2}")
  @MethodSource("received")
  void shouldStartADeliveryAsTheDesignTableSays(
      String destination, Set<String> configured, String expected) {
    assertEquals(
        expected, describe(new Decision.Move(DeliveryPolicy.received(destination, configured))));
  }

  @Test
  void shouldRetryAnUnknownDestinationOnlyOnceItIsConfigured() {
    Input still = new Input.Operator(OperatorAction.RETRY, null, "alice", "typo fixed?", false);
    Input abandon = new Input.Operator(OperatorAction.ABANDON, null, "alice", "typo", false);

    assertEquals(
        "RETRY of an UNKNOWN_DESTINATION delivery needs its destination configured at this"
            + " consumer (consumer.destinations.<name>.*, then a restart); until then ABANDON"
            + " applies",
        assertInstanceOf(Decision.Refuse.class, POLICY.decide(UNKNOWN_DESTINATION, still))
            .reason());
    assertEquals("ABANDONED event", describe(POLICY.decide(UNKNOWN_DESTINATION, abandon)));
    // Elsewhere the destination is configured by construction: nothing else changes.
    assertEquals(
        "PENDING event attempts reset",
        describe(
            POLICY.decide(
                NEEDS_RECONCILIATION,
                new Input.Operator(OperatorAction.RETRY, null, "alice", "checked", false))));
  }

  @Test
  void shouldNameTheDestinationAndTheWayOutWhenItIsUnknown() {
    Transition unknown = DeliveryPolicy.received("dest-A", Set.of("dest-b", "dest-a"));

    assertEquals("PublicationUnknownDestination", unknown.eventType());
    assertEquals(
        "destination 'dest-A' is not configured at this consumer (no consumer.destinations.dest-A.*;"
            + " configured: dest-a, dest-b): not sent; configure it and retry the delivery, or"
            + " abandon it",
        unknown.reason());
  }

  @Test
  void shouldReachEveryTransitionTheDesignNames() {
    // docs/design.md, "Delivery states": the transitions the policy decides (a claim's
    // PENDING | RETRY_WAIT -> DISPATCHING is the claim statement's, checked by
    // DeliveriesStatementsTest).
    Set<String> documented =
        Set.of(
            "DISPATCHING->PUBLISHED",
            "DISPATCHING->RETRY_WAIT",
            "DISPATCHING->UNCERTAIN",
            "DISPATCHING->FAILED",
            "DISPATCHING->NEEDS_RECONCILIATION",
            "UNCERTAIN->PUBLISHED",
            "UNCERTAIN->PENDING",
            "UNCERTAIN->NEEDS_RECONCILIATION",
            "NEEDS_RECONCILIATION->PUBLISHED",
            "NEEDS_RECONCILIATION->PENDING",
            "NEEDS_RECONCILIATION->ABANDONED",
            "UNKNOWN_DESTINATION->PENDING",
            "UNKNOWN_DESTINATION->ABANDONED");
    Set<String> reached = new HashSet<>();
    Stream.concat(transitions(), operatorActions())
        .map(Arguments::get)
        .forEach(
            row -> {
              DeliveryState from = (DeliveryState) row[0];
              if (POLICY.decide(from, (Input) row[1]) instanceof Decision.Move move
                  && move.transition().to() != from) {
                reached.add(from + "->" + move.transition().to());
              }
            });
    assertEquals(documented, reached);
  }

  @Test
  void shouldAnnounceEachNewStateWithTheDocumentedEventType() {
    assertEquals(
        "PublicationPublished", eventOf(DISPATCHING, dispatched(new Outcome.Published("a"), 1)));
    assertEquals("PublicationRetrying", eventOf(DISPATCHING, dispatched(retry(null), 1)));
    assertEquals("PublicationUncertain", eventOf(DISPATCHING, new Input.LeaseExpired()));
    assertEquals(
        "PublicationFailed", eventOf(DISPATCHING, dispatched(new Outcome.Permanent("x"), 1)));
    assertEquals(
        "PublicationRetrying", eventOf(UNCERTAIN, reconcile(IDEMPOTENT, 1, Duration.ZERO)));
    assertEquals(
        "PublicationNeedsReconciliation", eventOf(UNCERTAIN, reconcile(NEITHER, 1, Duration.ZERO)));
    assertEquals(
        "PublicationFailed", eventOf(NEEDS_RECONCILIATION, operator(OperatorAction.ABANDON)));
    assertEquals(
        "PublicationRetrying", eventOf(NEEDS_RECONCILIATION, operator(OperatorAction.RETRY)));
    assertEquals(null, eventOf(UNCERTAIN, lookedUp(new LookupResult.Unavailable("503"), 1)));
  }

  @Test
  void shouldCarryWhatWasLearnedIntoTheTransition() {
    Transition published =
        POLICY.decide(UNCERTAIN, lookedUp(new LookupResult.Found("art-7"), 1)).transition();
    assertEquals("art-7", published.remoteId());
    Transition marked =
        POLICY
            .decide(
                NEEDS_RECONCILIATION,
                new Input.Operator(OperatorAction.MARK_PUBLISHED, "art-9", "alice", "in the CMS"))
            .transition();
    assertEquals("art-9", marked.remoteId());
    assertEquals("operator alice: MARK_PUBLISHED: in the CMS", marked.reason());
    Transition exhausted =
        POLICY.decide(DISPATCHING, dispatchedAfterUncertainty(retry(null), MAX)).transition();
    assertEquals(
        "gave up after 3 attempts, last: 503; an earlier attempt was uncertain",
        exhausted.reason());
    assertEquals(
        "rejected: 400 invalid",
        POLICY
            .decide(DISPATCHING, dispatched(new Outcome.Permanent("400 invalid"), 1))
            .transition()
            .reason());
  }

  @Test
  void shouldNameTheAllowedStatesWhenRefusingAnOperator() {
    Decision refused = POLICY.decide(PUBLISHED, operator(OperatorAction.RETRY));
    assertEquals(
        "RETRY applies to [NEEDS_RECONCILIATION, UNKNOWN_DESTINATION] but the delivery is PUBLISHED",
        assertInstanceOf(Decision.Refuse.class, refused).reason());
    assertEquals(
        EnumSet.of(UNCERTAIN, NEEDS_RECONCILIATION),
        POLICY.allowedFrom(OperatorAction.MARK_PUBLISHED));
  }

  @Test
  void shouldCoverEveryAttemptCountOnceWithTheUncertainRules() {
    for (Capabilities destination : List.of(IDEMPOTENT, LOOKUP, BOTH, NEITHER)) {
      List<UncertainRule> rules = POLICY.uncertainRules(destination);
      for (int attempts : new int[] {0, 1, MAX - 1, MAX, MAX + 1, Integer.MAX_VALUE - 1}) {
        int covering = 0;
        for (UncertainRule rule : rules) {
          covering += rule.covers(attempts) ? 1 : 0;
        }
        assertEquals(1, covering, destination + " at " + attempts + " attempts");
      }
      for (UncertainRule rule : rules) {
        assertTrue(
            rule.decision() instanceof Decision.Move || rule.decision() instanceof Decision.LookUp,
            rule.toString());
      }
    }
  }

  @Test
  void shouldCoverEveryAttemptCountAndFirstAttemptAgeOnceWhenKeysAreForgotten() {
    for (Capabilities destination : List.of(KEY_WINDOW, BOTH_WINDOW)) {
      List<UncertainRule> rules = POLICY.uncertainRules(destination);
      for (int attempts : new int[] {0, 1, MAX - 1, MAX, MAX + 1}) {
        for (Duration age : List.of(Duration.ZERO, INSIDE, PAST, Duration.ofDays(30))) {
          int covering = 0;
          for (UncertainRule rule : rules) {
            covering += rule.covers(attempts, age) ? 1 : 0;
          }
          assertEquals(1, covering, destination + " at " + attempts + " attempts, age " + age);
        }
      }
    }
  }

  @Test
  void shouldCountTheWindowAgainOnlyAfterAProofThatNothingWasCreated() {
    assertTrue(
        POLICY
            .decide(UNCERTAIN, lookedUp(new LookupResult.NotFound(), 1))
            .transition()
            .restartsWindow());
    assertTrue(
        POLICY
            .decide(NEEDS_RECONCILIATION, operator(OperatorAction.RETRY))
            .transition()
            .restartsWindow());
    assertFalse(
        POLICY
            .decide(UNCERTAIN, reconcile(KEY_WINDOW, 1, Duration.ZERO, INSIDE))
            .transition()
            .restartsWindow());
    assertFalse(
        POLICY.decide(DISPATCHING, dispatched(retry(null), 1)).transition().restartsWindow());
  }

  @Test
  void shouldSayWhyAClaimPastTheWindowIsNotSent() {
    String reason =
        POLICY.decide(DISPATCHING, claimed(KEY_WINDOW, true, PAST)).transition().reason();

    assertTrue(reason.contains("older than the destination's resend window (PT1H"), reason);
    assertTrue(reason.contains("not sent, an operator decides"), reason);
  }

  @Test
  void shouldClaimDueDeliveriesFromPendingAndRetryWaitOnly() {
    assertEquals(EnumSet.of(PENDING, RETRY_WAIT), DeliveryPolicy.claimable());
  }

  @Test
  void shouldRefuseToBeBuiltWithoutAnAttempt() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new DeliveryPolicy(0, LOOKUP_RETRY, (attempt, retryAfter) -> Duration.ZERO));
  }

  private static String eventOf(DeliveryState state, Input input) {
    return POLICY.decide(state, input).transition().eventType();
  }

  private static String describe(Decision decision) {
    return switch (decision) {
      case Decision.Move move -> {
        Transition t = move.transition();
        yield t.to()
            + (t.announced() ? " event" : " silently")
            + (t.retryIn().isZero() ? "" : " in " + t.retryIn())
            + (t.resetsAttempts() ? " attempts reset" : "");
      }
      case Decision.LookUp lookUp -> "LOOK_UP";
      case Decision.Send send -> "SEND";
      case Decision.Wait wait -> "WAIT " + wait.remaining();
      case Decision.Refuse refuse -> "REFUSED";
    };
  }

  private static Arguments row(DeliveryState state, Input input, String expected) {
    return Arguments.of(state, input, expected);
  }

  private static List<Arguments> operatorRow(
      DeliveryState state, String markPublished, String retry, String abandon) {
    return List.of(
        row(state, operator(OperatorAction.MARK_PUBLISHED), markPublished),
        row(state, operator(OperatorAction.RETRY), retry),
        row(state, operator(OperatorAction.ABANDON), abandon));
  }

  private static Input operator(OperatorAction action) {
    return new Input.Operator(
        action, action == OperatorAction.MARK_PUBLISHED ? "art-9" : null, "alice", "checked");
  }

  private static Outcome retry(Duration retryAfter) {
    return new Outcome.Retry("503", retryAfter);
  }

  private static Input dispatched(Outcome outcome, int attempts) {
    return new Input.Dispatched(outcome, attempts, false);
  }

  private static Input dispatchedWhileHeld(Outcome outcome, int attempts, Duration held) {
    return new Input.Dispatched(outcome, attempts, false, held);
  }

  private static Input dispatchedAfterUncertainty(Outcome outcome, int attempts) {
    return new Input.Dispatched(outcome, attempts, true);
  }

  private static Input reconcile(Capabilities destination, int attempts, Duration uncertainFor) {
    return new Input.Reconcile(destination, attempts, uncertainFor);
  }

  private static Input reconcile(
      Capabilities destination, int attempts, Duration uncertainFor, Duration sinceFirstAttempt) {
    return new Input.Reconcile(destination, attempts, uncertainFor, sinceFirstAttempt);
  }

  private static Input claimed(
      Capabilities destination, boolean everUncertain, Duration sinceFirstAttempt) {
    return new Input.Claimed(destination, everUncertain, sinceFirstAttempt);
  }

  private static Input lookedUp(LookupResult result, int attempts) {
    return new Input.LookedUp(result, LOOKUP, attempts);
  }
}
