package io.herald.cli.trace;

import io.herald.cli.trace.Trace.AttemptRow;
import io.herald.cli.trace.Trace.Delivery;
import io.herald.cli.trace.Trace.InboxRow;
import io.herald.cli.trace.Trace.Job;
import io.herald.cli.trace.Trace.OperatorActionRow;
import io.herald.cli.trace.Trace.PublicationEvent;
import io.herald.cli.trace.Trace.Scan;
import io.herald.cli.trace.Trace.StatusEvent;
import io.herald.cli.trace.Trace.Step;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The pure side of {@code herald trace}: the time-ordered chain of what was found, the gaps (what
 * should be there and is not), and the human-readable text. Stateless and thread-safe.
 */
final class TraceText {

  /** Delivery states entered without a status event (creation, a claim). */
  private static final Set<String> UNANNOUNCED = Set.of("PENDING", "DISPATCHING");

  private TraceText() {}

  /**
   * Every finding as a step, ordered by time; steps of the same instant keep the order of the
   * pipeline (job, event, inbox, delivery, attempts, actions, status events, the writer's view), so
   * a chain read top-down is the causal one even where two clocks agree to the microsecond.
   */
  static List<Step> chain(
      Job job,
      PublicationEvent event,
      Scan publicationScan,
      InboxRow inbox,
      Delivery delivery,
      List<AttemptRow> attempts,
      List<OperatorActionRow> actions,
      List<StatusEvent> statusEvents,
      Scan statusScan) {
    List<Step> steps = new ArrayList<>();
    steps.add(
        new Step(
            job.createdAt(),
            "writer",
            "job "
                + job.id()
                + " created for "
                + job.businessKey()
                + " (idempotency key "
                + abbreviate(job.idempotencyKey())
                + ", payload "
                + abbreviate(job.payloadHash())
                + ")"));
    if (event != null) {
      steps.add(
          new Step(
              event.timestamp(),
              "kafka",
              "PublicationRequested "
                  + event.eventId()
                  + " in "
                  + publicationScan.topic()
                  + " partition "
                  + event.partition()
                  + " offset "
                  + event.offset()
                  + copies(event.copies(), event.offsets())));
    }
    if (inbox != null) {
      steps.add(
          new Step(
              inbox.receivedAt(),
              "consumer",
              "inbox row (" + inbox.handler() + ") for event " + inbox.messageId()));
    }
    if (delivery != null) {
      steps.add(
          new Step(
              delivery.createdAt(),
              "consumer",
              "delivery " + delivery.id() + " created from event " + delivery.messageId()));
    }
    for (AttemptRow attempt : attempts) {
      steps.add(new Step(attempt.startedAt(), "attempt", attempt(attempt)));
    }
    for (OperatorActionRow action : actions) {
      steps.add(
          new Step(
              action.actedAt(),
              "operator",
              action.action()
                  + " by "
                  + action.actor()
                  + ": "
                  + action.fromState()
                  + " -> "
                  + action.toState()
                  + (action.remoteId() == null ? "" : " remote id " + action.remoteId())
                  + " ("
                  + action.reason()
                  + ")"));
    }
    for (StatusEvent status : statusEvents) {
      steps.add(
          new Step(
              status.occurredAt() != null ? status.occurredAt() : status.timestamp(),
              "kafka",
              status.eventType()
                  + " "
                  + status.state()
                  + (status.remoteId() == null ? "" : " remote id " + status.remoteId())
                  + " in "
                  + statusScan.topic()
                  + " partition "
                  + status.partition()
                  + " offset "
                  + status.offset()
                  + (status.copies() > 1 ? " (" + status.copies() + " copies)" : "")
                  + (status.reason() == null ? "" : ": " + status.reason())));
    }
    if (job.statusOccurredAt() != null) {
      steps.add(
          new Step(
              job.updatedAt(),
              "writer",
              "view "
                  + job.status()
                  + (job.remoteId() == null ? "" : " remote id " + job.remoteId())
                  + " (from status event "
                  + job.statusEventId()
                  + " of "
                  + job.statusOccurredAt()
                  + ")"));
    }
    // List.sort is stable: equal instants keep the pipeline order above.
    steps.sort(Comparator.comparing(Step::at, Comparator.nullsLast(Comparator.naturalOrder())));
    return steps;
  }

  /** What should be there and was not found, in pipeline order; empty when the chain is whole. */
  static List<String> gaps(
      Job job,
      PublicationEvent event,
      Scan publicationScan,
      String publicationTopic,
      InboxRow inbox,
      Delivery delivery,
      List<StatusEvent> statusEvents,
      Scan statusScan) {
    List<String> gaps = new ArrayList<>();
    if (publicationScan == null) {
      gaps.add("topic " + publicationTopic + " does not exist: the job's event was not looked for");
    } else if (event == null) {
      gaps.add(
          "no PublicationRequested event of job "
              + job.id()
              + " in "
              + where(publicationScan)
              + " (not relayed yet, or lost)");
    }
    if (inbox == null) {
      gaps.add("no consumer inbox row for the job's event (not consumed yet)");
    }
    if (delivery == null) {
      gaps.add("no consumer delivery for " + job.businessKey() + " (not consumed yet, or purged)");
    } else {
      if (statusScan == null) {
        gaps.add("status events not read: writer.status.enabled=false names no topic");
      } else if (statusEvents.isEmpty() && !UNANNOUNCED.contains(delivery.state())) {
        gaps.add("no status event of delivery " + delivery.id() + " in " + where(statusScan));
      }
      // A new delivery (PENDING) and a claim (DISPATCHING) write no status event, so the view
      // cannot follow them; any other difference is a view that has not caught up.
      boolean unannouncedStart =
          delivery.state().equals("DISPATCHING")
              || (delivery.state().equals("PENDING") && job.status().equals("REQUESTED"));
      if (!unannouncedStart && !delivery.state().equals(job.status())) {
        gaps.add(
            "writer view "
                + job.status()
                + " behind delivery "
                + delivery.state()
                + " (status event not applied yet)");
      }
    }
    return gaps;
  }

  /** The chain, then the gaps, then one summary line. */
  static String human(Trace trace) {
    String nl = System.lineSeparator();
    StringBuilder text = new StringBuilder();
    Job job = trace.job();
    text.append("job ").append(job.id()).append("  ").append(job.businessKey()).append(nl);
    for (Step step : trace.chain()) {
      // Microseconds, the databases' precision: a Java clock's nanoseconds only blur the column.
      String at = step.at() == null ? "-" : step.at().truncatedTo(ChronoUnit.MICROS).toString();
      text.append(at);
      pad(text, at.length(), 29);
      text.append(step.where());
      pad(text, step.where().length(), 10);
      text.append(step.what()).append(nl);
    }
    for (String gap : trace.gaps()) {
      text.append("GAP: ").append(gap).append(nl);
    }
    text.append(summary(trace)).append(nl);
    return text.toString();
  }

  static String summary(Trace trace) {
    Delivery delivery = trace.delivery();
    Job job = trace.job();
    return "now: delivery "
        + (delivery == null
            ? "none"
            : delivery.state()
                + (delivery.remoteId() == null ? "" : " remote id " + delivery.remoteId()))
        + ", "
        + plural(trace.attempts().size(), "attempt")
        + ", "
        + plural(trace.statusEvents().size(), "status event")
        + ", "
        + plural(trace.operatorActions().size(), "operator action")
        + "; writer view "
        + job.status()
        + (job.remoteId() == null ? "" : " remote id " + job.remoteId())
        + (trace.gaps().isEmpty() ? "; chain complete" : "; " + plural(trace.gaps().size(), "gap"));
  }

  private static String attempt(AttemptRow a) {
    Duration took =
        a.startedAt() != null && a.endedAt() != null
            ? Duration.between(a.startedAt(), a.endedAt())
            : Duration.ZERO;
    return "#"
        + a.attempt()
        + " "
        + a.kind().toLowerCase(Locale.ROOT)
        + ", claim token "
        + a.claimToken()
        + " by "
        + a.claimOwner()
        + ": "
        + a.outcome()
        + ", "
        + (a.httpStatus() == null ? "no HTTP answer" : "HTTP " + a.httpStatus())
        + ", "
        + took.toMillis()
        + " ms -> "
        + (a.recordedState() == null
            ? "refused by the fencing token (claim taken over)"
            : a.recordedState())
        + (a.remoteId() == null ? "" : " remote id " + a.remoteId())
        + (a.requestHash() == null ? "" : ", request " + abbreviated(a.requestHash()))
        + (a.error() == null ? "" : " (" + a.error() + ")");
  }

  /**
   * The first {@value #HASH_SHOWN} hex digits of a request hash: enough to tell two bodies apart by
   * eye; {@code --json} has it in full.
   */
  static String abbreviated(String requestHash) {
    return "sha256:"
        + (requestHash.length() <= HASH_SHOWN ? requestHash : requestHash.substring(0, HASH_SHOWN));
  }

  private static final int HASH_SHOWN = 12;

  private static String copies(int copies, List<Long> offsets) {
    return copies <= 1 ? " (1 copy)" : " (" + copies + " copies, offsets " + offsets + ")";
  }

  private static String where(Scan scan) {
    return scan.topic()
        + " partition "
        + scan.partition()
        + " of "
        + scan.partitions()
        + " (offsets "
        + scan.fromOffset()
        + " to "
        + scan.toOffset()
        + ")";
  }

  private static String abbreviate(String hex) {
    return hex == null || hex.length() <= 12 ? String.valueOf(hex) : hex.substring(0, 12) + "...";
  }

  private static String plural(int n, String what) {
    return n + " " + what + (n == 1 ? "" : "s");
  }

  private static void pad(StringBuilder text, int used, int width) {
    text.append(" ".repeat(Math.max(1, width - used)));
  }
}
