package io.herald.relay.slot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.herald.relay.offsets.EngineOffset;
import io.herald.relay.offsets.Lsn;
import io.herald.relay.offsets.SlotIdentity;
import io.herald.relay.offsets.StoredOffsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlotGuardTest {

  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
  private static final ServerState SERVER =
      new ServerState("7000", "herald", Lsn.parse("0/5000000"));
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
    return new SlotIdentity("7000", "herald", "herald_relay", Optional.of(CREATED), CREATED, NOW);
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
    ServerState other = new ServerState("8000", "herald", SERVER.currentWal());
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
            "7000", "herald", "herald_relay", Optional.empty(), Lsn.parse("0/5000000"), NOW);
    SlotGuard.Decision decision =
        guard.check(
            Optional.of(slot(Lsn.parse("0/5000000"))),
            Optional.of(CREATED),
            SERVER,
            new StoredOffsets(Optional.empty(), Optional.of(recovered)),
            NOW);

    assertThat(decision.verdict()).isEqualTo(SlotGuard.Verdict.RESUME_WITHOUT_OFFSET);
  }
}
