package io.herald.cli.audit;

import io.herald.cli.audit.Tally.Finding;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code herald audit} found: figures overall and per tenant, the first keys of each finding,
 * and whether anything was violated. Immutable; {@code --json} prints it as it is.
 */
record AuditReport(
    String auditedAt,
    Scope scope,
    Sources sources,
    Figures overall,
    Map<String, Figures> tenants,
    Map<String, List<String>> findings,
    boolean violated) {

  /** What was audited: since as an ISO-8601 instant or null for all time, tenant or null. */
  record Scope(String since, String tenant, long stuckAfterSeconds) {}

  /** How much was read from each source. */
  record Sources(
      long jobs,
      long eventRecords,
      long unreadableEvents,
      long deadLetters,
      long statusEvents,
      long remoteArticles,
      List<String> remoteListings) {}

  /** The figures of one tenant or of all; ages in seconds, null when there is no such item. */
  record Figures(
      long jobs,
      long events,
      long kafkaDuplicates,
      long extraEventIds,
      long deliveries,
      long published,
      long failed,
      long open,
      long inFlight,
      long purged,
      long deadLettered,
      long lost,
      long lostJobWithoutEvent,
      long lostEventWithoutDelivery,
      long duplicateRemoteArticles,
      long missingRemoteArticles,
      long conflicts,
      long stuck,
      Map<String, Long> stuckByState,
      long uncertain,
      Long oldestUncertainSeconds,
      long needsReconciliation,
      Long oldestNeedsReconciliationSeconds,
      long statusViewLag,
      Long oldestStatusViewLagSeconds,
      long staleStatusView,
      long missingStatusEvents,
      long orphans,
      long unknownDestination,
      long violations) {

    static Figures of(Tally.Counts c, Instant now) {
      return new Figures(
          c.jobs,
          c.events,
          c.kafkaDuplicates,
          c.extraEventIds,
          c.deliveries,
          c.published,
          c.failed,
          c.open,
          c.inFlight,
          c.purged,
          c.of(Finding.DEAD_LETTERED),
          c.lost(),
          c.of(Finding.LOST_JOB_WITHOUT_EVENT),
          c.of(Finding.LOST_EVENT_WITHOUT_DELIVERY),
          c.of(Finding.DUPLICATE_REMOTE_ARTICLES),
          c.of(Finding.MISSING_REMOTE_ARTICLE),
          c.of(Finding.CONFLICT),
          c.of(Finding.STUCK),
          Map.copyOf(c.stuck),
          c.uncertain,
          age(c.oldestUncertain, now),
          c.needsReconciliation,
          age(c.oldestNeedsReconciliation, now),
          c.statusViewLag,
          age(c.oldestStatusViewLag, now),
          c.of(Finding.STALE_STATUS_VIEW),
          c.of(Finding.MISSING_STATUS_EVENT),
          c.of(Finding.ORPHAN),
          c.of(Finding.UNKNOWN_DESTINATION),
          c.violations());
    }

    private static Long age(Instant since, Instant now) {
      return since == null ? null : Math.max(0, Duration.between(since, now).toSeconds());
    }
  }

  static AuditReport of(Tally tally, Scope scope, Sources sources) {
    Map<String, Figures> tenants = new LinkedHashMap<>();
    tally
        .tenants()
        .forEach((tenant, counts) -> tenants.put(tenant, Figures.of(counts, tally.now())));
    Map<String, List<String>> findings = new LinkedHashMap<>();
    tally.examples().forEach((finding, keys) -> findings.put(finding.name(), List.copyOf(keys)));
    Figures overall = Figures.of(tally.all(), tally.now());
    return new AuditReport(
        tally.now().toString(),
        scope,
        sources,
        overall,
        tenants,
        findings,
        overall.violations() > 0);
  }

  /** The report for people: sources, one line per tenant, each finding with its keys, summary. */
  String human() {
    String nl = System.lineSeparator();
    StringBuilder text = new StringBuilder();
    text.append("Herald audit at ")
        .append(auditedAt)
        .append(" (")
        .append(scope.since() == null ? "all time" : "since " + scope.since())
        .append(", ")
        .append(scope.tenant() == null ? "all tenants" : "tenant " + scope.tenant())
        .append(", stuck after ")
        .append(duration(scope.stuckAfterSeconds()))
        .append(")")
        .append(nl);
    text.append("read: ")
        .append(sources.jobs())
        .append(" jobs, ")
        .append(sources.eventRecords())
        .append(" publication event records (")
        .append(sources.unreadableEvents())
        .append(" unreadable), ")
        .append(sources.deadLetters())
        .append(" dead letters, ")
        .append(sources.statusEvents())
        .append(" status events, ")
        .append(sources.remoteArticles())
        .append(" remote articles from ")
        .append(sources.remoteListings().size())
        .append(" listing(s)")
        .append(nl);
    tenants.forEach(
        (tenant, f) ->
            text.append("tenant ")
                .append(tenant)
                .append(": ")
                .append(f.jobs())
                .append(" jobs, ")
                .append(f.events())
                .append(" in Kafka (")
                .append(f.kafkaDuplicates())
                .append(" duplicate records absorbed), ")
                .append(f.deliveries())
                .append(" deliveries: ")
                .append(f.published())
                .append(" published, ")
                .append(f.failed())
                .append(" failed or abandoned, ")
                .append(f.open())
                .append(" in progress, ")
                .append(f.inFlight())
                .append(" in flight, ")
                .append(f.purged())
                .append(" finished and purged; ")
                .append(f.violations())
                .append(" violations")
                .append(nl));
    findings.forEach(
        (name, keys) -> {
          Finding finding = Finding.valueOf(name);
          long count = count(finding);
          text.append(finding.violation ? "VIOLATION " : "note ")
              .append(finding.label)
              .append(": ")
              .append(count)
              .append(nl);
          keys.forEach(key -> text.append("  ").append(key).append(nl));
          if (count > keys.size()) {
            text.append("  ... and ").append(count - keys.size()).append(" more").append(nl);
          }
        });
    text.append(summary()).append(nl);
    return text.toString();
  }

  /** The last line: every figure the contract names, then the verdict. */
  String summary() {
    Figures f = overall;
    return "audit: lost="
        + f.lost()
        + " duplicate_remote_articles="
        + f.duplicateRemoteArticles()
        + " missing_remote_articles="
        + f.missingRemoteArticles()
        + " conflicts="
        + f.conflicts()
        + " stuck="
        + f.stuck()
        + " uncertain="
        + f.uncertain()
        + " (oldest "
        + duration(f.oldestUncertainSeconds())
        + ") needs_reconciliation="
        + f.needsReconciliation()
        + " (oldest "
        + duration(f.oldestNeedsReconciliationSeconds())
        + ") status_view_lag="
        + f.statusViewLag()
        + " (oldest "
        + duration(f.oldestStatusViewLagSeconds())
        + ") missing_status_events="
        + f.missingStatusEvents()
        + " -> "
        + (violated ? "VIOLATED (" + f.violations() + ")" : "OK");
  }

  private long count(Finding finding) {
    return switch (finding) {
      case LOST_JOB_WITHOUT_EVENT -> overall.lostJobWithoutEvent();
      case LOST_EVENT_WITHOUT_DELIVERY -> overall.lostEventWithoutDelivery();
      case DUPLICATE_REMOTE_ARTICLES -> overall.duplicateRemoteArticles();
      case MISSING_REMOTE_ARTICLE -> overall.missingRemoteArticles();
      case CONFLICT -> overall.conflicts();
      case STUCK -> overall.stuck();
      case STALE_STATUS_VIEW -> overall.staleStatusView();
      case MISSING_STATUS_EVENT -> overall.missingStatusEvents();
      case DEAD_LETTERED -> overall.deadLettered();
      case NEEDS_RECONCILIATION -> overall.needsReconciliation();
      case ORPHAN -> overall.orphans();
      case UNKNOWN_DESTINATION -> overall.unknownDestination();
    };
  }

  /** 75 → "1m15s"; null → "-". */
  static String duration(Long seconds) {
    if (seconds == null) {
      return "-";
    }
    long s = seconds;
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
    }
    if (s < 86_400) {
      return (s / 3600) + "h" + (s % 3600 / 60 == 0 ? "" : (s % 3600 / 60) + "m");
    }
    return (s / 86_400) + "d" + (s % 86_400 / 3600 == 0 ? "" : (s % 86_400 / 3600) + "h");
  }
}
