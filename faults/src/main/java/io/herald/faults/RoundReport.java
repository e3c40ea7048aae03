package io.herald.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one round: its seed, the faults injected, what {@link Checker} and {@code herald
 * audit} found. {@link #ok()} is the round's verdict.
 *
 * @param resent requests a client sent again after getting no answer
 * @param uncertain the round's deliveries whose outcome was unknown at some point (a timeout after
 *     sending, a lookup, or a claim killed in flight)
 * @param needsReconciliation deliveries that waited for an operator at quiescence
 * @param ambiguousNotParked items at the destination with neither key nor lookup, whose article
 *     exists, in a state other than PUBLISHED or NEEDS_RECONCILIATION at quiescence
 * @param resolved items the operator settled with {@code herald deliveries resolve}
 * @param checked null when the round failed before the check
 * @param failure why the round could not finish, or null
 * @param longestStall the longest time without one of the round's events arriving at the consumer
 *     (its deliveries' creation), from the start of the load to the last arrival
 * @param figures what the load and the fault class measured besides the checker's counts, by name
 *     ({@code writer_503}, {@code max_slot_readers}...), in the order recorded
 * @param violations the fault class's own invariants that the round broke, named (empty: held)
 */
record RoundReport(
    String scenario,
    int round,
    long seed,
    List<String> faults,
    int unexpectedAnswers,
    int resent,
    int uncertain,
    int needsReconciliation,
    List<String> ambiguousNotParked,
    int resolved,
    Checker.Result checked,
    int auditExit,
    String auditSummary,
    Duration recovery,
    String failure,
    Duration longestStall,
    Map<String, Long> figures,
    List<String> violations) {

  RoundReport {
    faults = List.copyOf(faults);
    ambiguousNotParked = List.copyOf(ambiguousNotParked);
    figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    violations = List.copyOf(violations);
  }

  /** The figure named {@code name}, 0 when none was recorded. */
  long figure(String name) {
    return figures.getOrDefault(name, 0L);
  }

  /** Every invariant held and the audit passed. */
  boolean ok() {
    return failure == null
        && checked != null
        && checked.clean()
        && ambiguousNotParked.isEmpty()
        && unexpectedAnswers == 0
        && violations.isEmpty()
        && auditExit == 0;
  }

  /** The report's lines, as RELIABILITY.md quotes them. */
  String format() {
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            "%s round %d: seed=%d faults=%d%s%n",
            scenario, round, seed, faults.size(), failure == null ? "" : " FAILED: " + failure));
    if (checked != null) {
      text.append(
          String.format(
              "  intents=%d published=%d lost=%d kafka_duplicates=%d duplicate_effects=%d"
                  + " duplicate_remote_articles=%d duplicate_remote_articles_neither=%d"
                  + " uncertain=%d needs_reconciliation=%d ambiguous_not_parked=%d resolved=%d"
                  + " order_violations=%d unexpected_answers=%d resent=%d recovery=%.1fs"
                  + " longest_stall=%.1fs%n",
              checked.intents(),
              checked.published(),
              checked.lost(),
              checked.kafkaDuplicates(),
              checked.duplicateEffects(),
              checked.duplicateRemoteArticles(),
              checked.duplicateRemoteArticlesNeither(),
              uncertain,
              needsReconciliation,
              ambiguousNotParked.size(),
              resolved,
              checked.orderViolations(),
              unexpectedAnswers,
              resent,
              recovery.toMillis() / 1000.0,
              longestStall.toMillis() / 1000.0));
      checked.examples().forEach(e -> text.append("  VIOLATION ").append(e).append('\n'));
    }
    ambiguousNotParked.forEach(a -> text.append("  AMBIGUOUS NOT PARKED ").append(a).append('\n'));
    if (!figures.isEmpty()) {
      text.append(" ");
      figures.forEach((name, value) -> text.append(' ').append(name).append('=').append(value));
      text.append('\n');
    }
    violations.forEach(v -> text.append("  VIOLATION ").append(v).append('\n'));
    if (auditSummary != null) {
      text.append("  herald audit (exit ").append(auditExit).append("): ").append(auditSummary);
      text.append('\n');
    }
    text.append("  ").append(ok() ? "OK" : "VIOLATED");
    return text.toString();
  }

  /** One line over all rounds: faults, sums and the longest recovery. */
  static String totals(String scenario, List<RoundReport> reports) {
    int faults = 0;
    int intents = 0;
    int lost = 0;
    int kafkaDuplicates = 0;
    int duplicateRemote = 0;
    int needsReconciliation = 0;
    int orderViolations = 0;
    long worst = 0;
    long longestStall = 0;
    List<Long> failed = new ArrayList<>();
    for (RoundReport report : reports) {
      faults += report.faults().size();
      worst = Math.max(worst, report.recovery() == null ? 0 : report.recovery().toMillis());
      longestStall = Math.max(longestStall, report.longestStall().toMillis());
      if (report.checked() != null) {
        intents += report.checked().intents();
        lost += report.checked().lost();
        kafkaDuplicates += report.checked().kafkaDuplicates();
        duplicateRemote +=
            report.checked().duplicateRemoteArticles()
                + report.checked().duplicateRemoteArticlesNeither();
        orderViolations += report.checked().orderViolations();
      }
      needsReconciliation += report.needsReconciliation();
      if (!report.ok()) {
        failed.add(report.seed());
      }
    }
    return String.format(
        "%s total: rounds=%d faults=%d intents=%d lost=%d kafka_duplicates=%d"
            + " duplicate_remote_articles=%d needs_reconciliation=%d order_violations=%d"
            + " max_recovery=%.1fs max_longest_stall=%.1fs failed_seeds=%s",
        scenario,
        reports.size(),
        faults,
        intents,
        lost,
        kafkaDuplicates,
        duplicateRemote,
        needsReconciliation,
        orderViolations,
        worst / 1000.0,
        longestStall / 1000.0,
        failed);
  }

  /** Collects a round's figures as it runs; not thread-safe. */
  static final class Builder {
    private final String scenario;
    private final int round;
    private final long seed;
    private final List<String> faults = new ArrayList<>();
    private int unexpectedAnswers;
    private int resent;
    private int uncertain;
    private int needsReconciliation;
    private List<String> ambiguousNotParked = List.of();
    private int resolved;
    private Checker.Result checked;
    private int auditExit = -1;
    private String auditSummary;
    private Duration recovery = Duration.ZERO;
    private Duration longestStall = Duration.ZERO;
    private final Map<String, Long> figures = new LinkedHashMap<>();
    private final List<String> violations = new ArrayList<>();

    Builder(String scenario, int round, long seed) {
      this.scenario = scenario;
      this.round = round;
      this.seed = seed;
    }

    List<String> faults() {
      return faults;
    }

    void fault(String description) {
      faults.add(description);
    }

    void unexpectedAnswers(int count) {
      unexpectedAnswers = count;
    }

    void resent(int count) {
      resent = count;
    }

    void uncertain(int count) {
      uncertain = count;
    }

    void needsReconciliation(int count) {
      needsReconciliation = count;
    }

    void ambiguousNotParked(List<String> items) {
      ambiguousNotParked = items;
    }

    void resolved(int count) {
      resolved = count;
    }

    void checked(Checker.Result result) {
      checked = result;
    }

    void audit(int exit, String summary) {
      auditExit = exit;
      auditSummary = summary;
    }

    void recovery(Duration duration) {
      recovery = duration;
    }

    void longestStall(Duration gap) {
      longestStall = gap;
    }

    void figure(String name, long value) {
      figures.put(name, value);
    }

    void fault(FaultClass.RoundChecks checks) {
      figures.putAll(checks.figures());
      violations.addAll(checks.violations());
    }

    RoundReport failed(String failure) {
      return build(failure);
    }

    RoundReport build() {
      return build(null);
    }

    private RoundReport build(String failure) {
      return new RoundReport(
          scenario,
          round,
          seed,
          faults,
          unexpectedAnswers,
          resent,
          uncertain,
          needsReconciliation,
          ambiguousNotParked,
          resolved,
          checked,
          auditExit,
          auditSummary,
          recovery,
          failure,
          longestStall,
          figures,
          violations);
    }
  }
}
