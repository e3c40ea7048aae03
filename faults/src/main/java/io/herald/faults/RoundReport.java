package io.herald.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * @param figures the fault class's own figures ({@link FaultClass#figures()})
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
    Map<String, String> figures) {

  RoundReport {
    faults = List.copyOf(faults);
    figures = Map.copyOf(figures);
    ambiguousNotParked = List.copyOf(ambiguousNotParked);
  }

  /** Every invariant held and the audit passed. */
  boolean ok() {
    return failure == null
        && checked != null
        && checked.clean()
        && ambiguousNotParked.isEmpty()
        && unexpectedAnswers == 0
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
    if (!figures.isEmpty()) {
      text.append("  figures:");
      new TreeMap<>(figures).forEach((k, v) -> text.append(' ').append(k).append('=').append(v));
      text.append('\n');
    }
    ambiguousNotParked.forEach(a -> text.append("  AMBIGUOUS NOT PARKED ").append(a).append('\n'));
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
    private Map<String, String> figures = Map.of();

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

    void figures(Map<String, String> values) {
      figures = values;
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
          figures);
    }
  }
}
