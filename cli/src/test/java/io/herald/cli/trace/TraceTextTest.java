package io.herald.cli.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.cli.trace.Trace.AttemptRow;
import io.herald.cli.trace.Trace.Delivery;
import io.herald.cli.trace.Trace.InboxRow;
import io.herald.cli.trace.Trace.Job;
import io.herald.cli.trace.Trace.OperatorActionRow;
import io.herald.cli.trace.Trace.PublicationEvent;
import io.herald.cli.trace.Trace.Scan;
import io.herald.cli.trace.Trace.StatusEvent;
import io.herald.cli.trace.Trace.Step;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The chain's order, its gaps and its text, on a hand-built history (no database, no Kafka). */
class TraceTextTest {

  private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
  private static final UUID JOB = UUID.fromString("0193a000-0000-7000-8000-000000000001");
  private static final UUID EVENT = UUID.fromString("0193a000-0000-7000-8000-000000000002");
  private static final UUID DELIVERY = UUID.fromString("0193a000-0000-7000-8000-000000000003");
  private static final String HEX = "ab".repeat(32);

  private static final Scan PUBLICATIONS = new Scan("herald.publication.events", 1, 3, 0, 18);
  private static final Scan STATUSES = new Scan("herald.delivery.events", 0, 2, 4, 9);

  @Test
  void shouldOrderTheChainByTimeKeepingPipelineOrderForEqualInstants() {
    List<Step> chain = uncertainThenPublished(job("PUBLISHED", "art-9")).chain();

    assertThat(chain)
        .extracting(Step::where)
        .containsExactly(
            "writer",
            "kafka",
            "consumer",
            "consumer",
            "attempt",
            "kafka",
            "attempt",
            "kafka",
            "writer");
    assertThat(chain).extracting(Step::at).isSorted();
    // The inbox row and the delivery share the intake transaction's instant.
    assertThat(chain.get(2).what()).startsWith("inbox row (consumer.delivery-intake)");
    assertThat(chain.get(3).what()).startsWith("delivery " + DELIVERY + " created");
  }

  @Test
  void shouldPrintEachAttemptWithItsTokenStatusDurationAndRecordedState() {
    String text = TraceText.human(uncertainThenPublished(job("PUBLISHED", "art-9")));

    assertThat(text)
        .startsWith("job " + JOB + "  t1/a-1/r-1/dest-a" + System.lineSeparator())
        .containsPattern(
            "(?m)^2026-12-01T12:00:01Z +attempt +#1 publish, claim token 1 by owner-a: uncertain,"
                + " no HTTP answer, 1000 ms -> UNCERTAIN \\(no answer within the request timeout\\)$")
        .containsPattern(
            "(?m)^2026-12-01T12:00:03Z +attempt +#1 lookup, claim token 2 by owner-a: found,"
                + " HTTP 200, 15 ms -> PUBLISHED remote id art-9$")
        .containsPattern(
            "(?m)^2026-12-01T12:00:00\\.100Z +kafka +PublicationRequested "
                + EVENT
                + " in herald.publication.events partition 1 offset 17 \\(1 copy\\)$")
        .containsPattern(
            "(?m)^2026-12-01T12:00:02Z +kafka +PublicationUncertain UNCERTAIN in"
                + " herald.delivery.events partition 0 offset 5: no answer within the request"
                + " timeout$")
        .containsPattern(
            "(?m)^2026-12-01T12:00:04Z +writer +view PUBLISHED remote id art-9 \\(from status"
                + " event .* of 2026-12-01T12:00:03\\.020Z\\)$")
        .doesNotContain("GAP")
        .endsWith(
            "now: delivery PUBLISHED remote id art-9, 2 attempts, 2 status events, 0 operator"
                + " actions; writer view PUBLISHED remote id art-9; chain complete"
                + System.lineSeparator());
  }

  @Test
  void shouldNameAResultTheFencingTokenRefusedAndAnOperatorsAction() {
    AttemptRow fenced =
        new AttemptRow(
            2,
            5,
            "PUBLISH",
            "owner-b",
            T0,
            T0.plusMillis(40),
            201,
            "published",
            null,
            "art-2",
            null,
            null);
    OperatorActionRow action =
        new OperatorActionRow(
            UUID.randomUUID(),
            "MARK_PUBLISHED",
            "alice",
            "found in the CMS",
            "art-2",
            "NEEDS_RECONCILIATION",
            "PUBLISHED",
            T0.plusSeconds(9));

    List<Step> chain =
        TraceText.chain(
            job("PUBLISHED", "art-2"),
            null,
            PUBLICATIONS,
            null,
            null,
            List.of(fenced),
            List.of(action),
            List.of(),
            STATUSES);

    assertThat(chain)
        .extracting(Step::what)
        .contains(
            "#2 publish, claim token 5 by owner-b: published, HTTP 201, 40 ms -> refused by the"
                + " fencing token (claim taken over) remote id art-2",
            "MARK_PUBLISHED by alice: NEEDS_RECONCILIATION -> PUBLISHED remote id art-2 (found in"
                + " the CMS)");
  }

  @Test
  void shouldReportEachMissingLinkAsAGap() {
    Job job = job("REQUESTED", null);

    List<String> gaps =
        TraceText.gaps(
            job, null, PUBLICATIONS, "herald.publication.events", null, null, List.of(), STATUSES);

    assertThat(gaps)
        .containsExactly(
            "no PublicationRequested event of job "
                + JOB
                + " in herald.publication.events partition 1 of 3 (offsets 0 to 18) (not relayed"
                + " yet, or lost)",
            "no consumer inbox row for the job's event (not consumed yet)",
            "no consumer delivery for t1/a-1/r-1/dest-a (not consumed yet, or purged)");
  }

  @Test
  void shouldReportAWriterViewBehindTheDeliveryButNotAnUnannouncedClaim() {
    Delivery published = delivery("PUBLISHED", "art-9");
    Delivery claimed = delivery("DISPATCHING", null);
    List<StatusEvent> none = List.of();

    assertThat(
            TraceText.gaps(
                job("UNCERTAIN", null),
                event(),
                PUBLICATIONS,
                "herald.publication.events",
                inbox(),
                published,
                List.of(uncertainEvent()),
                STATUSES))
        .containsExactly(
            "writer view UNCERTAIN behind delivery PUBLISHED (status event not applied yet)");
    assertThat(
            TraceText.gaps(
                job("REQUESTED", null),
                event(),
                PUBLICATIONS,
                "herald.publication.events",
                inbox(),
                claimed,
                none,
                STATUSES))
        .isEmpty();
  }

  @Test
  void shouldParseAJobIdOrABusinessKeyWhoseRevisionMayHoldSlashes() {
    assertThat(Target.parse(JOB.toString()).jobId()).isEqualTo(JOB);
    Target key = Target.parse("t1/a-1/2026/12/01/dest-a");
    assertThat(key.key().tenant()).isEqualTo("t1");
    assertThat(key.key().articleId()).isEqualTo("a-1");
    assertThat(key.key().revisionId()).isEqualTo("2026/12/01");
    assertThat(key.key().destination()).isEqualTo("dest-a");
    assertThatThrownBy(() -> Target.parse("t1/a-1/dest-a")).hasMessageContaining("four parts");
    assertThatThrownBy(() -> Target.parse("not-a-uuid")).hasMessageContaining("neither a job id");
    assertThatThrownBy(() -> Target.parse("t1//r/dest-a")).hasMessageContaining("articleId");
  }

  @Test
  void shouldShowTheRequestHashAbbreviatedInTheText() {
    AttemptRow sent =
        new AttemptRow(
            1,
            3,
            "PUBLISH",
            "owner-a",
            T0,
            T0.plusMillis(12),
            409,
            "retry",
            null,
            null,
            "HTTP 409",
            "0123456789abcdef".repeat(4));

    List<Step> chain =
        TraceText.chain(
            job("PUBLISHED", "art-2"),
            null,
            PUBLICATIONS,
            null,
            null,
            List.of(sent),
            List.of(),
            List.of(),
            STATUSES);

    assertThat(chain)
        .extracting(Step::what)
        .contains(
            "#1 publish, claim token 3 by owner-a: retry, HTTP 409, 12 ms -> refused by the"
                + " fencing token (claim taken over), request sha256:0123456789ab (HTTP 409)");
  }

  private static Trace uncertainThenPublished(Job job) {
    List<AttemptRow> attempts =
        List.of(
            new AttemptRow(
                1,
                1,
                "PUBLISH",
                "owner-a",
                T0.plusSeconds(1),
                T0.plusSeconds(2),
                null,
                "uncertain",
                "UNCERTAIN",
                null,
                "no answer within the request timeout",
                null),
            new AttemptRow(
                1,
                2,
                "LOOKUP",
                "owner-a",
                T0.plusSeconds(3),
                T0.plusMillis(3015),
                200,
                "found",
                "PUBLISHED",
                "art-9",
                null,
                null));
    List<StatusEvent> events =
        List.of(
            uncertainEvent(),
            new StatusEvent(
                UUID.randomUUID(),
                0,
                6,
                T0.plusMillis(3030),
                "PublicationPublished",
                "PUBLISHED",
                "art-9",
                1,
                "found by lookup",
                T0.plusMillis(3020),
                1));
    PublicationEvent event = event();
    InboxRow inbox = inbox();
    Delivery delivery = delivery("PUBLISHED", "art-9");
    return new Trace(
        job,
        event,
        PUBLICATIONS,
        inbox,
        delivery,
        attempts,
        List.of(),
        events,
        STATUSES,
        TraceText.chain(
            job, event, PUBLICATIONS, inbox, delivery, attempts, List.of(), events, STATUSES),
        TraceText.gaps(
            job,
            event,
            PUBLICATIONS,
            "herald.publication.events",
            inbox,
            delivery,
            events,
            STATUSES));
  }

  private static StatusEvent uncertainEvent() {
    return new StatusEvent(
        UUID.randomUUID(),
        0,
        5,
        T0.plusMillis(2010),
        "PublicationUncertain",
        "UNCERTAIN",
        null,
        1,
        "no answer within the request timeout",
        T0.plusSeconds(2),
        1);
  }

  private static Job job(String status, String remoteId) {
    boolean viewed = !status.equals("REQUESTED");
    return new Job(
        JOB,
        "t1",
        "a-1",
        "r-1",
        "dest-a",
        HEX,
        HEX,
        T0,
        viewed ? T0.plusSeconds(4) : T0,
        status,
        remoteId,
        viewed ? T0.plusMillis(3020) : null,
        viewed ? UUID.randomUUID() : null);
  }

  private static PublicationEvent event() {
    return new PublicationEvent(EVENT, 1, 17, T0.plusMillis(100), 1, List.of(17L));
  }

  private static InboxRow inbox() {
    return new InboxRow(EVENT, "consumer.delivery-intake", T0.plusMillis(200));
  }

  private static Delivery delivery(String state, String remoteId) {
    return new Delivery(
        DELIVERY,
        EVENT,
        state,
        1,
        2,
        null,
        null,
        remoteId,
        null,
        null,
        T0.plusMillis(200),
        T0.plusSeconds(3));
  }
}
