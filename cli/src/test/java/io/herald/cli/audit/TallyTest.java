package io.herald.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TallyTest {

  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  private static final String HASH = "a".repeat(64);
  private static final Duration STUCK_AFTER = Duration.ofMinutes(10);
  private static final Duration RETENTION = Duration.ofDays(30);

  private final Tally tally = new Tally(NOW, STUCK_AFTER, RETENTION, true);

  @Test
  void shouldCountAJobWithItsEventAndPublishedDeliveryAsClean() {
    UUID id = UUID.randomUUID();
    tally.add(
        job(id, "PUBLISHED", NOW.minusSeconds(60)), delivered(id, "PUBLISHED", 1, "PUBLISHED"));

    assertThat(tally.all().violations()).isZero();
    assertThat(tally.all().published).isEqualTo(1);
    assertThat(tally.all().events).isEqualTo(1);
  }

  @Test
  void shouldCallAYoungJobWithoutItsEventInFlightAndAnOldOneLost() {
    tally.add(job(UUID.randomUUID(), "REQUESTED", NOW.minusSeconds(5)), null);
    tally.add(job(UUID.randomUUID(), "REQUESTED", NOW.minus(Duration.ofHours(1))), null);

    assertThat(tally.all().inFlight).isEqualTo(1);
    assertThat(tally.all().of(Tally.Finding.LOST_JOB_WITHOUT_EVENT)).isEqualTo(1);
  }

  @Test
  void shouldTakeAFinishedJobWithoutDeliveryAsPurgedOnlyPastTheDeliveryRetention() {
    UUID old = UUID.randomUUID();
    UUID young = UUID.randomUUID();
    tally.add(job(old, "PUBLISHED", NOW.minus(Duration.ofDays(31))), null);
    tally.add(job(young, "PUBLISHED", NOW.minus(Duration.ofDays(1))), eventOnly(young, true));

    assertThat(tally.all().purged).isEqualTo(1);
    assertThat(tally.all().of(Tally.Finding.LOST_EVENT_WITHOUT_DELIVERY)).isEqualTo(1);
    assertThat(tally.examples().get(Tally.Finding.LOST_EVENT_WITHOUT_DELIVERY).getFirst())
        .contains("job " + young);
  }

  @Test
  void shouldCallAnEventNotYetReadInFlightAndADeadLetteredOneANoteNotAViolation() {
    UUID unread = UUID.randomUUID();
    UUID dead = UUID.randomUUID();
    tally.add(job(unread, "REQUESTED", NOW.minusSeconds(1)), eventOnly(unread, false));
    Rows.Consumed deadLettered = withDeadLetter(eventOnly(dead, true));
    tally.add(job(dead, "REQUESTED", NOW.minusSeconds(1)), deadLettered);

    assertThat(tally.all().inFlight).isEqualTo(1);
    assertThat(tally.all().of(Tally.Finding.DEAD_LETTERED)).isEqualTo(1);
    assertThat(tally.all().violations()).isZero();
  }

  @Test
  void shouldCountStuckPerStateOnlyPastTheThreshold() {
    UUID fresh = UUID.randomUUID();
    UUID stuck = UUID.randomUUID();
    tally.add(job(fresh, "REQUESTED", NOW), open(fresh, "RETRY_WAIT", NOW.minusSeconds(30)));
    tally.add(
        job(stuck, "REQUESTED", NOW.minus(Duration.ofHours(2))),
        open(stuck, "DISPATCHING", NOW.minus(Duration.ofHours(1))));

    assertThat(tally.all().open).isEqualTo(1);
    assertThat(tally.all().stuck).containsExactlyEntriesOf(java.util.Map.of("DISPATCHING", 1L));
    assertThat(tally.all().of(Tally.Finding.STUCK)).isEqualTo(1);
  }

  @Test
  void shouldCountDuplicateAndMissingRemoteArticles() {
    UUID twice = UUID.randomUUID();
    UUID none = UUID.randomUUID();
    tally.add(job(twice, "PUBLISHED", NOW), delivered(twice, "PUBLISHED", 2, "PUBLISHED"));
    tally.add(job(none, "PUBLISHED", NOW), delivered(none, "PUBLISHED", 0, "PUBLISHED"));

    assertThat(tally.all().of(Tally.Finding.DUPLICATE_REMOTE_ARTICLES)).isEqualTo(1);
    assertThat(tally.all().of(Tally.Finding.MISSING_REMOTE_ARTICLE)).isEqualTo(1);
  }

  @Test
  void shouldCountAPayloadThatDiffersFromTheJobAsAConflict() {
    UUID id = UUID.randomUUID();
    Rows.Consumed consumed = delivered(id, "PUBLISHED", 1, "PUBLISHED");
    tally.add(new Rows.Job(id, "t1", "a", "r", "d", "b".repeat(64), "PUBLISHED", NOW), consumed);

    // The event and the delivery both carry another hash than the job: two findings.
    assertThat(tally.all().of(Tally.Finding.CONFLICT)).isEqualTo(2);
  }

  @Test
  void shouldReportAStatusViewBehindAsLagAndAsStaleOnlyPastTheThreshold() {
    UUID fresh = UUID.randomUUID();
    UUID stale = UUID.randomUUID();
    tally.add(job(fresh, "REQUESTED", NOW), published(fresh, NOW.minusSeconds(5)));
    tally.add(job(stale, "REQUESTED", NOW), published(stale, NOW.minus(Duration.ofHours(1))));

    assertThat(tally.all().statusViewLag).isEqualTo(2);
    assertThat(tally.all().oldestStatusViewLag).isEqualTo(NOW.minus(Duration.ofHours(1)));
    assertThat(tally.all().of(Tally.Finding.STALE_STATUS_VIEW)).isEqualTo(1);
  }

  @Test
  void shouldCountUncertainAndNeedsReconciliationWithTheirOldestAge() {
    UUID uncertain = UUID.randomUUID();
    UUID operator = UUID.randomUUID();
    tally.add(job(uncertain, "UNCERTAIN", NOW), open(uncertain, "UNCERTAIN", NOW.minusSeconds(90)));
    tally.add(
        job(operator, "NEEDS_RECONCILIATION", NOW),
        open(operator, "NEEDS_RECONCILIATION", NOW.minusSeconds(300)));

    assertThat(tally.all().uncertain).isEqualTo(1);
    assertThat(tally.all().oldestUncertain).isEqualTo(NOW.minusSeconds(90));
    assertThat(tally.all().needsReconciliation).isEqualTo(1);
    assertThat(tally.all().violations()).isZero();
    AuditReport.Figures figures = AuditReport.Figures.of(tally.all(), NOW);
    assertThat(figures.oldestNeedsReconciliationSeconds()).isEqualTo(300);
  }

  @Test
  void shouldNoteAnUnknownDestinationNeitherLostNorFailedNorAViolation() {
    UUID typo = UUID.randomUUID();
    tally.add(
        job(typo, "UNKNOWN_DESTINATION", NOW.minus(Duration.ofHours(1))),
        delivered(typo, "UNKNOWN_DESTINATION", 0, "UNKNOWN_DESTINATION"));

    assertThat(tally.all().of(Tally.Finding.UNKNOWN_DESTINATION)).isEqualTo(1);
    assertThat(tally.all().lost()).isZero();
    assertThat(tally.all().failed).isZero();
    assertThat(tally.all().violations()).isZero();
    assertThat(tally.examples().get(Tally.Finding.UNKNOWN_DESTINATION).getFirst())
        .endsWith(" for dest-a");
    assertThat(AuditReport.Figures.of(tally.all(), NOW).unknownDestination()).isEqualTo(1);
  }

  @Test
  void shouldKeepTheFiguresOfEachTenantApart() {
    UUID a = UUID.randomUUID();
    tally.add(
        new Rows.Job(a, "t2", "a", "r", "d", HASH, "REQUESTED", NOW.minusSeconds(7200)), null);

    assertThat(tally.tenants()).containsOnlyKeys("t2");
    assertThat(tally.tenants().get("t2").lost()).isEqualTo(1);
    assertThat(tally.all().lost()).isEqualTo(1);
  }

  @Test
  void shouldOrderIdsAsPostgresDoesWithTheFirstBitSet() {
    UUID low = UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff");
    UUID high = UUID.fromString("80000000-0000-0000-0000-000000000000");

    assertThat(low.compareTo(high)).isPositive();
    assertThat(Rows.DATABASE_ORDER.compare(low, high)).isNegative();
  }

  private static Rows.Job job(UUID id, String status, Instant createdAt) {
    return new Rows.Job(id, "t1", "a-1", "r-1", "dest-a", HASH, status, createdAt);
  }

  private static Rows.Consumed eventOnly(UUID id, boolean consumed) {
    return new Rows.Consumed(
        id, 1L, 1L, 1L, HASH, consumed, false, 0, 5L, null, null, null, null, null, "t1", null,
        null, null, false, null, 0, false);
  }

  private static Rows.Consumed withDeadLetter(Rows.Consumed c) {
    return new Rows.Consumed(
        c.jobId(),
        c.eventCopies(),
        c.eventIds(),
        c.eventHashes(),
        c.eventHash(),
        c.consumed(),
        true,
        c.partition(),
        c.offset(),
        null,
        null,
        null,
        null,
        null,
        c.tenant(),
        null,
        null,
        null,
        false,
        null,
        0,
        false);
  }

  private static Rows.Consumed delivered(UUID id, String state, long remote, String lastEvent) {
    return new Rows.Consumed(
        id,
        1L,
        1L,
        1L,
        HASH,
        true,
        false,
        0,
        5L,
        UUID.randomUUID(),
        state,
        HASH,
        NOW.minusSeconds(30),
        null,
        "t1",
        "a-1",
        "r-1",
        "dest-a",
        true,
        lastEvent,
        remote,
        true);
  }

  private static Rows.Consumed published(UUID id, Instant updatedAt) {
    return new Rows.Consumed(
        id,
        1L,
        1L,
        1L,
        HASH,
        true,
        false,
        0,
        5L,
        UUID.randomUUID(),
        "PUBLISHED",
        HASH,
        updatedAt,
        null,
        "t1",
        "a-1",
        "r-1",
        "dest-a",
        true,
        "PUBLISHED",
        1,
        true);
  }

  private static Rows.Consumed open(UUID id, String state, Instant since) {
    return new Rows.Consumed(
        id,
        1L,
        1L,
        1L,
        HASH,
        true,
        false,
        0,
        5L,
        UUID.randomUUID(),
        state,
        HASH,
        since,
        since,
        "t1",
        "a-1",
        "r-1",
        "dest-a",
        true,
        state,
        1,
        true);
  }
}
