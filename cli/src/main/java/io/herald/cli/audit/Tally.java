package io.herald.cli.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Classifies each merged job and counts it, overall and per tenant, keeping the first {@value
 * #EXAMPLES} keys of every violation so the report names what to look at. Memory: one counter set
 * per tenant and a bounded list per finding, whatever the number of jobs. Not thread-safe.
 */
final class Tally {

  static final int EXAMPLES = 10;

  /** States after which the writer's view and the status events must show the delivery's state. */
  private static final Set<String> ANNOUNCED =
      Set.of(
          "UNCERTAIN",
          "NEEDS_RECONCILIATION",
          "UNKNOWN_DESTINATION",
          "PUBLISHED",
          "FAILED",
          "ABANDONED");

  private static final Set<String> WRITER_FINAL =
      Set.of("PUBLISHED", "FAILED", "ABANDONED", "CONFLICT");

  private static final Set<String> OPEN = Set.of("PENDING", "DISPATCHING", "RETRY_WAIT");

  /** Kinds of finding, named as the report names them. */
  enum Finding {
    LOST_JOB_WITHOUT_EVENT("lost: job without its event in Kafka", true),
    LOST_EVENT_WITHOUT_DELIVERY("lost: event consumed but no delivery", true),
    DUPLICATE_REMOTE_ARTICLES("duplicate remote articles for one intent", true),
    MISSING_REMOTE_ARTICLE("published but no remote article at a listed destination", true),
    CONFLICT("payload conflict", true),
    STUCK("stuck", true),
    STALE_STATUS_VIEW("writer's status view behind the delivery", true),
    MISSING_STATUS_EVENT("no status event for the delivery's state", true),
    DEAD_LETTERED("event dead-lettered (see herald dlq list)", false),
    NEEDS_RECONCILIATION("needs an operator (herald deliveries resolve)", false),
    // Nothing lost: the consumer keeps it, announced; a person configures the destination and
    // retries it, or abandons it.
    UNKNOWN_DESTINATION(
        "destination unknown to the consumer (configure it and retry, or abandon)", false),
    ORPHAN("consumer side without a writer job", false);

    final String label;
    final boolean violation;

    Finding(String label, boolean violation) {
      this.label = label;
      this.violation = violation;
    }
  }

  /** Counters of one tenant, or of all. */
  static final class Counts {
    long jobs;
    long events;
    long kafkaDuplicates;
    long extraEventIds;
    long deliveries;
    long published;
    long failed;
    long open;
    long inFlight;
    long purged;
    long uncertain;
    Instant oldestUncertain;
    long needsReconciliation;
    Instant oldestNeedsReconciliation;
    long statusViewLag;
    Instant oldestStatusViewLag;
    final Map<Finding, Long> findings = new LinkedHashMap<>();
    final Map<String, Long> stuck = new TreeMap<>();

    void count(Finding finding) {
      findings.merge(finding, 1L, Long::sum);
    }

    long of(Finding finding) {
      return findings.getOrDefault(finding, 0L);
    }

    long lost() {
      return of(Finding.LOST_JOB_WITHOUT_EVENT) + of(Finding.LOST_EVENT_WITHOUT_DELIVERY);
    }

    long violations() {
      long total = 0;
      for (Map.Entry<Finding, Long> entry : findings.entrySet()) {
        if (entry.getKey().violation) {
          total += entry.getValue();
        }
      }
      return total;
    }
  }

  private final Instant now;
  private final Instant stuckBefore;
  private final Instant purgedBefore;
  private final boolean writerViewChecked;
  private final Counts all = new Counts();
  private final Map<String, Counts> tenants = new TreeMap<>();
  private final Map<Finding, List<String>> examples = new LinkedHashMap<>();

  /**
   * @param deliveryRetention the consumer's {@code consumer.delivery.retention}: only a job older
   *     than that may have lost its finished delivery to the purge; a younger one without its
   *     delivery lost it
   * @param writerViewChecked false when the writer runs without its status view, so that its
   *     REQUESTED jobs are not reported as behind
   */
  Tally(Instant now, Duration stuckAfter, Duration deliveryRetention, boolean writerViewChecked) {
    this.now = now;
    this.stuckBefore = now.minus(stuckAfter);
    this.purgedBefore = now.minus(deliveryRetention);
    this.writerViewChecked = writerViewChecked;
  }

  /** One merged job id: the writer's job, the consumer side, or both. */
  void add(Rows.Job job, Rows.Consumed consumed) {
    if (job == null) {
      orphan(consumed);
      return;
    }
    Counts tenant = tenant(job.tenant());
    each(tenant, c -> c.jobs++);
    boolean writerFinal = WRITER_FINAL.contains(job.status());
    if ("CONFLICT".equals(job.status())) {
      find(tenant, Finding.CONFLICT, job.key() + " (the consumer refused its payload)");
    }
    boolean purgeable = writerFinal && job.createdAt().isBefore(purgedBefore);
    if (consumed == null || (!consumed.hasEvent() && !consumed.hasDelivery())) {
      if (purgeable) {
        each(tenant, c -> c.purged++);
      } else if (writerFinal && !"CONFLICT".equals(job.status())) {
        // The writer saw it finish, so the consumer had it: its delivery is gone too early.
        find(
            tenant,
            Finding.LOST_EVENT_WITHOUT_DELIVERY,
            job.key() + " (job " + job.id() + ", " + job.status() + ", its delivery is missing)");
      } else if (job.createdAt().isBefore(stuckBefore)) {
        find(tenant, Finding.LOST_JOB_WITHOUT_EVENT, job.key() + " (job " + job.id() + ")");
      } else {
        each(tenant, c -> c.inFlight++);
      }
      return;
    }
    if (consumed.hasEvent()) {
      events(tenant, consumed);
      if (consumed.eventHashes() > 1 || !job.payloadHash().equals(consumed.eventHash())) {
        find(tenant, Finding.CONFLICT, job.key() + " (its event's payload differs from the job)");
      }
    }
    if (!consumed.hasDelivery()) {
      if ("CONFLICT".equals(job.status())) {
        return;
      } else if (purgeable) {
        each(tenant, c -> c.purged++);
      } else if (consumed.deadLettered()) {
        find(tenant, Finding.DEAD_LETTERED, job.key() + " (job " + job.id() + ")");
      } else if (consumed.consumed() || writerFinal) {
        find(
            tenant,
            Finding.LOST_EVENT_WITHOUT_DELIVERY,
            job.key()
                + " (job "
                + job.id()
                + ", partition "
                + consumed.partition()
                + " offset "
                + consumed.offset()
                + (consumed.inInbox() ? ", in the inbox)" : ")"));
      } else {
        each(tenant, c -> c.inFlight++);
      }
      return;
    }
    delivery(tenant, job, consumed);
  }

  private void orphan(Rows.Consumed consumed) {
    Counts tenant = tenant(consumed.tenant() == null ? "(unknown)" : consumed.tenant());
    find(tenant, Finding.ORPHAN, consumed.key() + " (job " + consumed.jobId() + ")");
    if (consumed.hasEvent()) {
      events(tenant, consumed);
    }
    if (consumed.hasDelivery()) {
      delivery(tenant, null, consumed);
    }
  }

  private void events(Counts tenant, Rows.Consumed consumed) {
    each(
        tenant,
        c -> {
          c.events++;
          c.kafkaDuplicates += consumed.eventCopies() - consumed.eventIds();
          c.extraEventIds += consumed.eventIds() - 1;
        });
  }

  private void delivery(Counts tenant, Rows.Job job, Rows.Consumed d) {
    each(tenant, c -> c.deliveries++);
    String key = d.key() + " (delivery " + d.deliveryId() + ")";
    if (job != null && !job.payloadHash().equals(d.deliveryHash())) {
      find(tenant, Finding.CONFLICT, key + ": the delivery's payload differs from the job");
    }
    boolean old = d.updatedAt().isBefore(stuckBefore);
    String state = d.state();
    if (OPEN.contains(state)) {
      if (old) {
        stuck(tenant, state, key);
      } else {
        each(tenant, c -> c.open++);
      }
    } else if ("UNCERTAIN".equals(state)) {
      Instant since = d.uncertainSince() == null ? d.updatedAt() : d.uncertainSince();
      each(
          tenant,
          c -> {
            c.uncertain++;
            c.oldestUncertain = min(c.oldestUncertain, since);
          });
      if (since.isBefore(stuckBefore)) {
        stuck(tenant, state, key);
      }
    } else if ("NEEDS_RECONCILIATION".equals(state)) {
      Instant since = d.uncertainSince() == null ? d.updatedAt() : d.uncertainSince();
      each(
          tenant,
          c -> {
            c.needsReconciliation++;
            c.oldestNeedsReconciliation = min(c.oldestNeedsReconciliation, since);
          });
      find(tenant, Finding.NEEDS_RECONCILIATION, key);
    } else if ("UNKNOWN_DESTINATION".equals(state)) {
      find(tenant, Finding.UNKNOWN_DESTINATION, key + " for " + d.destination());
    } else if ("PUBLISHED".equals(state)) {
      each(tenant, c -> c.published++);
    } else {
      each(tenant, c -> c.failed++);
    }
    if (d.remoteArticles() > 1) {
      find(
          tenant,
          Finding.DUPLICATE_REMOTE_ARTICLES,
          key + ": " + d.remoteArticles() + " remote articles");
    } else if ("PUBLISHED".equals(state) && d.destinationListed() && d.remoteArticles() == 0) {
      find(tenant, Finding.MISSING_REMOTE_ARTICLE, key);
    }
    if (!ANNOUNCED.contains(state)) {
      return;
    }
    if (writerViewChecked && job != null && !state.equals(job.status())) {
      Instant changed = d.updatedAt();
      each(
          tenant,
          c -> {
            c.statusViewLag++;
            c.oldestStatusViewLag = min(c.oldestStatusViewLag, changed);
          });
      if (old) {
        find(
            tenant,
            Finding.STALE_STATUS_VIEW,
            key + ": writer shows " + job.status() + ", delivery is " + state);
      }
    }
    if (old && !state.equals(d.statusEventState())) {
      find(
          tenant,
          Finding.MISSING_STATUS_EVENT,
          key
              + ": delivery is "
              + state
              + ", latest status event "
              + (d.statusEventState() == null ? "none" : d.statusEventState()));
    }
  }

  private void stuck(Counts tenant, String state, String key) {
    each(tenant, c -> c.stuck.merge(state, 1L, Long::sum));
    find(tenant, Finding.STUCK, key + " in " + state);
  }

  private void find(Counts tenant, Finding finding, String example) {
    each(tenant, c -> c.count(finding));
    List<String> list = examples.computeIfAbsent(finding, f -> new ArrayList<>());
    if (list.size() < EXAMPLES) {
      list.add(example);
    }
  }

  private Counts tenant(String tenant) {
    return tenants.computeIfAbsent(tenant, t -> new Counts());
  }

  private void each(Counts tenant, java.util.function.Consumer<Counts> update) {
    update.accept(tenant);
    update.accept(all);
  }

  private static Instant min(Instant current, Instant candidate) {
    return current == null || candidate.isBefore(current) ? candidate : current;
  }

  Counts all() {
    return all;
  }

  Map<String, Counts> tenants() {
    return tenants;
  }

  Map<Finding, List<String>> examples() {
    return examples;
  }

  Instant now() {
    return now;
  }
}
