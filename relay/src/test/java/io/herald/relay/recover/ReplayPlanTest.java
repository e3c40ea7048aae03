package io.herald.relay.recover;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReplayPlanTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final Duration OVERLAP = Duration.ofMinutes(10);
  private static final UUID A = UUID.fromString("0190b3c0-0000-7000-8000-00000000000a");
  private static final UUID B = UUID.fromString("0190b3c0-0000-7000-8000-00000000000b");

  private static PartitionTail tail(int partition, UUID id) {
    return new PartitionTail(partition, 41, Optional.ofNullable(id), T0);
  }

  private static ReplayPlan decide(List<PartitionTail> tails, ReplayPlan.Retained retained) {
    return ReplayPlan.decide("writer.outbox", "events", tails, retained, OVERLAP, false);
  }

  @Test
  void shouldRepublishFromTheEarliestLastEventOfAllPartitionsMinusTheOverlap() {
    ReplayPlan plan =
        decide(
            List.of(tail(0, A), tail(1, B)),
            new ReplayPlan.Retained(
                100, Optional.of(T0), Map.of(A, T0.plusSeconds(60), B, T0.plusSeconds(30))));

    assertThat(plan.refusal()).isEmpty();
    assertThat(plan.from()).contains(T0.plusSeconds(30).minus(OVERLAP));
  }

  @Test
  void shouldRefuseNamingThePartitionWhenItsLastEventIsNoLongerRetained() {
    ReplayPlan plan =
        decide(
            List.of(tail(0, A), tail(1, B)),
            new ReplayPlan.Retained(
                5, Optional.of(T0.plusSeconds(90)), Map.of(A, T0.plusSeconds(95))));

    assertThat(plan.from()).isEmpty();
    assertThat(plan.refusal().orElseThrow())
        .contains("does not reach back")
        .contains("partition 1 offset 41 (event " + B)
        .contains("the oldest from " + T0.plusSeconds(90))
        .doesNotContain("partition 0 offset");
  }

  @Test
  void shouldRefuseWhenALastRecordCarriesNoEventId() {
    ReplayPlan plan =
        decide(List.of(tail(0, null)), new ReplayPlan.Retained(5, Optional.of(T0), Map.of()));

    assertThat(plan.refusal().orElseThrow()).contains("without an id header");
  }

  @Test
  void shouldRefuseAnEmptyTopicUnlessEveryRetainedRowIsToBeRepublished() {
    ReplayPlan.Retained retained = new ReplayPlan.Retained(7, Optional.of(T0), Map.of());

    assertThat(decide(List.of(), retained).refusal().orElseThrow())
        .contains("holds no event")
        .contains("--all-retained");
    assertThat(
            ReplayPlan.decide("writer.outbox", "events", List.of(), retained, OVERLAP, true).from())
        .contains(T0);
  }

  @Test
  void shouldHaveNothingToDoWhenTheTopicAndTheOutboxAreBothEmpty() {
    ReplayPlan plan = decide(List.of(), new ReplayPlan.Retained(0, Optional.empty(), Map.of()));

    assertThat(plan.refusal()).isEmpty();
    assertThat(plan.from()).contains(Instant.EPOCH);
  }
}
