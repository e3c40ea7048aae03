package io.herald.relay.slot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.relay.offsets.EngineOffset;
import io.herald.relay.offsets.Lsn;
import io.herald.relay.offsets.SlotIdentity;
import io.herald.relay.offsets.StoredOffsets;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SlotGuardTest {

  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
  private static final ServerState SERVER =
      new ServerState("7000", "herald", Lsn.parse("0/5000000"), 1);
  private static final Lsn CREATED = Lsn.parse("0/1000000");
  private final SlotGuard guard = new SlotGuard("herald_relay", "pgoutput");

  private static SlotState slot(Lsn confirmed) {
    return new SlotState(
        "herald_relay",
        "pgoutput",
        "logical",
        "herald",
        false,
        Optional.of(confirmed),
        Optional.of(confirmed),
        Optional.empty());
  }

  private static StoredOffsets offsets(Lsn commit) {
    return new StoredOffsets(
        Optional.of(
            new EngineOffset(Optional.of(commit), Optional.of(commit), Optional.of(commit))),
        Optional.of(identity()));
  }

  private static SlotIdentity identity() {
    return new SlotIdentity(
        "7000", "herald", "herald_relay", Optional.of(CREATED), CREATED, NOW, OptionalLong.of(1));
  }

  @Test
  void shouldAdoptTheSlotOnFirstStartWhenItIsStillWhereTheSchemaCreatedIt() {
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(CREATED)), Optional.of(CREATED), SERVER, StoredOffsets.NONE, NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.ADOPT_SLOT);
    assertThat(decision.identityToStore()).contains(identity());
  }

  @Test
  void shouldResumeWhenTheSlotIsBehindTheStoredOffset() {
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/2000000"))),
            Optional.of(CREATED),
            SERVER,
            offsets(Lsn.parse("0/3000000")),
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME);
  }

  @Test
  void shouldRefuseWhenTheSlotIsMissing() {
    assertThatThrownBy(
            () ->
                guard.check(Optional.empty(), Optional.of(CREATED), SERVER, offsets(CREATED), NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("'herald_relay' does not exist")
        .hasMessageContaining("Recover:")
        .hasMessageContaining("herald relay recover");
  }

  @Test
  void shouldRefuseWhenTheSlotWasRecreatedAheadOfTheStoredOffsets() {
    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(Lsn.parse("0/4000000"))),
                    Optional.of(CREATED),
                    SERVER,
                    offsets(Lsn.parse("0/3000000")),
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("ahead of the relay offsets")
        .hasMessageContaining("0/4000000")
        .hasMessageContaining("0/3000000")
        .hasMessageContaining("herald relay recover");
  }

  @Test
  void shouldRefuseAFirstStartWhenSomeoneAlreadyConsumedTheSlot() {
    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(Lsn.parse("0/2000000"))),
                    Optional.of(CREATED),
                    SERVER,
                    StoredOffsets.NONE,
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("has moved from 0/1000000")
        .hasMessageContaining("herald relay recover");
  }

  @Test
  void shouldRefuseOffsetsFromAnotherCluster() {
    ServerState other = new ServerState("8000", "herald", SERVER.currentWal(), 1);
    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(CREATED)), Optional.of(CREATED), other, offsets(CREATED), NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("cluster 7000");
  }

  @Test
  void shouldRefuseOffsetsAheadOfTheServersWal() {
    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(CREATED)),
                    Optional.of(CREATED),
                    SERVER,
                    offsets(Lsn.parse("0/9000000")),
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("restored from a backup");
  }

  @Test
  void shouldRefuseWhenTheSchemaSetUpRegisteredANewSlot() {
    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(CREATED)),
                    Optional.of(Lsn.parse("0/1500000")),
                    SERVER,
                    offsets(Lsn.parse("0/2000000")),
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("created again");
  }

  @Test
  void shouldRefuseAnInvalidatedSlot() {
    SlotState lost =
        new SlotState(
            "herald_relay",
            "pgoutput",
            "logical",
            "herald",
            false,
            Optional.of(CREATED),
            Optional.empty(),
            Optional.of("wal_removed"));
    assertThatThrownBy(
            () ->
                guard.check(Optional.of(lost), Optional.of(CREATED), SERVER, offsets(CREATED), NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("invalidated")
        .hasMessageContaining("herald relay recover");
  }

  @Test
  void shouldResumeFromTheSlotWhenOnlyTheEngineOffsetIsGone() {
    StoredOffsets identityOnly = new StoredOffsets(Optional.empty(), Optional.of(identity()));
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/2000000"))),
            Optional.of(CREATED),
            SERVER,
            identityOnly,
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME_WITHOUT_OFFSET);
  }

  @Test
  void shouldResumeFromARecoveredSlotWhoseIdentityHasNoCreationMarker() {
    // What `herald relay recover` leaves: no engine offset, the new slot's identity without the
    // schema set-up's marker, while herald_relay.capture_slot still names the old slot's start.
    SlotIdentity recovered =
        new SlotIdentity(
            "7000",
            "herald",
            "herald_relay",
            Optional.empty(),
            Lsn.parse("0/5000000"),
            NOW,
            OptionalLong.of(1));
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/5000000"))),
            Optional.of(CREATED),
            SERVER,
            new StoredOffsets(Optional.empty(), Optional.of(recovered)),
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME_WITHOUT_OFFSET);
  }

  @Test
  void shouldResumeFromTheSlotWhenAStandbyWasPromotedPastTheStoredOffsets() {
    // The standby lacked WAL the relay had read: the offsets point past the new timeline's end.
    ServerState promoted = new ServerState("7000", "herald", Lsn.parse("0/3000000"), 2);
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/2000000"))),
            Optional.of(CREATED),
            promoted,
            offsets(Lsn.parse("0/3800000")),
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME_FROM_SLOT_AFTER_PROMOTION);
    assertThat(decision.identityToStore()).contains(identity().onTimeline(2));
  }

  @Test
  void shouldStillRefuseOffsetsPastTheWalOnTheSameTimeline() {
    ServerState restored = new ServerState("7000", "herald", Lsn.parse("0/3000000"), 1);

    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(Lsn.parse("0/2000000"))),
                    Optional.of(CREATED),
                    restored,
                    offsets(Lsn.parse("0/3800000")),
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("restored from a backup");
  }

  @Test
  void shouldRefuseAFormerPrimaryOnAnEarlierTimeline() {
    SlotIdentity onTwo = identity().onTimeline(2);

    assertThatThrownBy(
            () ->
                guard.check(
                    Optional.of(slot(Lsn.parse("0/2000000"))),
                    Optional.of(CREATED),
                    SERVER,
                    new StoredOffsets(offsets(Lsn.parse("0/2000000")).engine(), Optional.of(onTwo)),
                    NOW))
        .isInstanceOf(SlotGapException.class)
        .hasMessageContaining("last streamed on timeline 2")
        .hasMessageContaining("this server is on timeline 1");
  }

  @Test
  void shouldStoreTheTimelineWhenTheStoredIdentityDoesNotNameOne() {
    SlotIdentity old =
        new SlotIdentity(
            "7000",
            "herald",
            "herald_relay",
            Optional.of(CREATED),
            CREATED,
            NOW,
            OptionalLong.empty());
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/2000000"))),
            Optional.of(CREATED),
            SERVER,
            new StoredOffsets(offsets(Lsn.parse("0/2000000")).engine(), Optional.of(old)),
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME);
    assertThat(decision.identityToStore()).contains(identity());
  }

  @Test
  void shouldReadTheTimelineFromAWalFileName() {
    assertThat(ServerState.timelineOf("000000020000000000000003")).isEqualTo(2);
    assertThat(ServerState.timelineOf("0000001A0000000100000000")).isEqualTo(26);
    assertThatThrownBy(() -> ServerState.timelineOf("0/3000000"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
