package io.herald.relay.slot;

import io.herald.relay.offsets.EngineOffset;
import io.herald.relay.offsets.Lsn;
import io.herald.relay.offsets.SlotIdentity;
import io.herald.relay.offsets.StoredOffsets;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Decides, before the engine starts, whether streaming from the slot with the stored offsets could
 * skip a committed event; if it could, the relay refuses to start.
 *
 * <p>The invariants it relies on:
 *
 * <ul>
 *   <li>Debezium (and the relay's task in its place) confirms a position to the slot only after the
 *       offset holding it was stored, so a slot's {@code confirmed_flush_lsn} is never ahead of
 *       {@link EngineOffset#confirmedPosition()}. When it is, something else moved the slot: it was
 *       dropped and recreated (a new slot starts at the current end of the WAL), advanced by hand,
 *       or consumed by another reader. PostgreSQL would then stream from the slot's position and
 *       the events between the two positions would never reach Kafka.
 *   <li>Stored offsets can never be ahead of the server's current WAL position; when they are, the
 *       database was restored from a backup or the relay points at another server, and Debezium
 *       would skip every event up to the stored position.
 *   <li>The schema set-up registers the slot's consistent point when it creates the slot ({@code
 *       herald_relay.capture_slot}), the marker of that slot's creation. Until a relay has
 *       confirmed anything, the slot must still be at that point; once a relay adopted the slot,
 *       the marker it stored with the offsets must still match the registered one.
 *   <li>The stored {@link SlotIdentity} names the cluster ({@code system_identifier}); offsets of
 *       another cluster mean nothing here.
 *   <li>It also names the timeline the relay last streamed on. A higher one means a standby was
 *       promoted since: its copy of the slot (a failover slot) is at most where the relay had
 *       confirmed, but the stored offsets may point past the WAL the standby had received, at
 *       positions the new primary's own commits now take; Debezium, resuming from the stored
 *       offsets, would skip those commits. So after a promotion the relay resumes from the slot
 *       (duplicates, no loss). A lower one is a server the cluster has failed over from.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class SlotGuard {

  /** What the caller must do after a successful check. */
  public enum Verdict {
    /** First start: record the slot identity next to the offsets, then stream. */
    ADOPT_SLOT,
    /** Offsets and slot agree: stream. */
    RESUME,
    /**
     * The identity is stored but the engine offset is gone: streaming from the slot re-delivers
     * what the slot has not confirmed (duplicates, no loss).
     */
    RESUME_WITHOUT_OFFSET,
    /**
     * A standby was promoted since the relay last streamed: remove the stored engine offset and
     * store the identity on the new timeline, then stream from the slot's confirmed position.
     */
    RESUME_FROM_SLOT_AFTER_PROMOTION
  }

  /**
   * The outcome: what to do and the identity to store first, if any (on a first start, after a
   * promotion, and when the stored one does not yet name its timeline).
   */
  public record Decision(Verdict verdict, Optional<SlotIdentity> identityToStore) {}

  private final String slotName;
  private final String expectedPlugin;

  public SlotGuard(String slotName, String expectedPlugin) {
    this.slotName = slotName;
    this.expectedPlugin = expectedPlugin;
  }

  /**
   * @throws SlotGapException when starting could skip events
   */
  public Decision check(
      Optional<SlotState> found,
      Optional<Lsn> registeredCreation,
      ServerState server,
      StoredOffsets stored,
      Instant now) {
    SlotState slot = found.orElseThrow(() -> missing(server, stored));
    if (!"logical".equals(slot.slotType()) || !expectedPlugin.equals(slot.plugin())) {
      throw refuse(
          "Replication slot '%s' is a %s slot with plugin '%s'; the relay needs a logical slot with"
              + " plugin '%s'. Recover: drop it and run the schema migrations, which create it.",
          slotName, slot.slotType(), slot.plugin(), expectedPlugin);
    }
    if (!server.database().equals(slot.database())) {
      throw refuse(
          "Replication slot '%s' decodes database '%s' but the relay is connected to '%s'. Recover:"
              + " point debezium.source.database.dbname at '%s' or use this database's own slot.",
          slotName, slot.database(), server.database(), slot.database());
    }
    if (slot.invalidation().isPresent()) {
      throw refuse(
          "Replication slot '%s' was invalidated by PostgreSQL (%s): the WAL it needed is gone,"
              + " so events committed since position %s may be lost. Recover: stop this relay and"
              + " run `herald relay recover`, which creates a new slot, republishes the retained"
              + " outbox rows committed after the last event in Kafka and resets the relay offsets"
              + " (it refuses, naming what is missing, when the outbox no longer retains them);"
              + " raise max_slot_wal_keep_size so it does not happen again.",
          slotName,
          slot.invalidation().get(),
          slot.confirmedFlush().map(Lsn::toString).orElse("unknown"));
    }
    Lsn slotPosition =
        slot.confirmedFlush()
            .orElseThrow(
                () ->
                    refuse(
                        "Replication slot '%s' has no confirmed_flush_lsn; it is not a usable"
                            + " logical slot.",
                        slotName));
    Optional<SlotIdentity> identity = stored.identity();
    if (identity.isPresent()
        && !identity.get().systemIdentifier().equals(server.systemIdentifier())) {
      throw refuse(
          "The relay offsets were written against PostgreSQL cluster %s (slot '%s', adopted at %s)"
              + " but this server is cluster %s. Offsets of another cluster would skip or repeat"
              + " arbitrary events. Recover: point the relay at the right database, or give this"
              + " cluster its own offsets topic (offset.storage.topic) or engine name.",
          identity.get().systemIdentifier(),
          identity.get().slot(),
          identity.get().adoptedAt(),
          server.systemIdentifier());
    }
    if (identity.isPresent()
        && identity.get().createdAt().isPresent()
        && registeredCreation.isPresent()
        && !identity.get().createdAt().equals(registeredCreation)) {
      throw refuse(
          "Replication slot '%s' was created again by the schema set-up (consistent point %s) after"
              + " the relay adopted the slot created at %s: events committed between the two may"
              + " be lost. Recover: run `herald relay recover`, which republishes the retained outbox"
              + " rows committed after the last event in Kafka (the relay adopted the old slot at"
              + " %s), creates a new slot and resets the relay offsets, then start again.",
          slotName,
          registeredCreation.get(),
          identity.get().createdAt().get(),
          identity.get().adoptedAt());
    }
    OptionalLong storedTimeline = identity.map(SlotIdentity::timeline).orElse(OptionalLong.empty());
    if (storedTimeline.isPresent() && server.timeline() < storedTimeline.getAsLong()) {
      throw refuse(
          "The relay last streamed on timeline %d of PostgreSQL cluster %s, but this server is on"
              + " timeline %d: a former primary the cluster has failed over from (or a server"
              + " restored from an older backup). Its WAL parted from the one the relay read."
              + " Recover: point the relay at the current primary.",
          storedTimeline.getAsLong(), server.systemIdentifier(), server.timeline());
    }
    boolean promoted = storedTimeline.isPresent() && server.timeline() > storedTimeline.getAsLong();
    // The identity on this server's timeline, when the stored one is not (yet).
    Optional<SlotIdentity> retimed =
        identity
            .filter(i -> i.timeline().isEmpty() || promoted)
            .map(i -> i.onTimeline(server.timeline()));
    Optional<EngineOffset> offset = stored.engine();
    if (offset.isEmpty()) {
      if (identity.isPresent()) {
        return new Decision(Verdict.RESUME_WITHOUT_OFFSET, retimed);
      }
      if (registeredCreation.isPresent() && slotPosition.isAfter(registeredCreation.get())) {
        throw refuse(
            "Replication slot '%s' has moved from %s, where the schema set-up created it, to %s,"
                + " but the relay has no offsets for it: another reader consumed the slot, or it"
                + " was recreated, so events committed between the two positions would never reach"
                + " Kafka. Recover: point the relay at the offsets topic it used before"
                + " (offset.storage.topic) if it still exists; otherwise run `herald relay recover`,"
                + " which creates a new slot, republishes the retained outbox rows committed after"
                + " the last event in Kafka and records the new slot in the offsets topic.",
            slotName, registeredCreation.get(), slotPosition);
      }
      return new Decision(
          Verdict.ADOPT_SLOT,
          Optional.of(
              new SlotIdentity(
                  server.systemIdentifier(),
                  server.database(),
                  slotName,
                  registeredCreation,
                  slotPosition,
                  now,
                  OptionalLong.of(server.timeline()))));
    }
    Lsn furthest = offset.get().furthest().orElse(slotPosition);
    // After a promotion offsets past the new timeline's WAL are expected (what the standby lacked).
    if (!promoted && furthest.isAfter(server.currentWal())) {
      throw refuse(
          "The relay offsets point at WAL position %s but the server's WAL ends at %s: the"
              + " database was restored from a backup, or the relay points at another server."
              + " Streaming would skip every event up to %s. Recover: republish the outbox rows"
              + " committed after the restore point, then delete the relay offsets (topic entry"
              + " for this engine) and start again.",
          furthest, server.currentWal(), furthest);
    }
    Optional<Lsn> confirmed = offset.get().confirmedPosition();
    if (confirmed.isPresent() && slotPosition.isAfter(confirmed.get())) {
      throw refuse(
          "Replication slot '%s' is ahead of the relay offsets: its confirmed_flush_lsn is %s but"
              + " the relay last confirmed %s. The slot was dropped and recreated, advanced by"
              + " hand, or read by another consumer; events committed between %s and %s would"
              + " never reach Kafka. Recover: stop this relay and run `herald relay recover` (it"
              + " creates a new slot, republishes the retained outbox rows committed after the last"
              + " event in Kafka and resets the relay offsets), then start again.",
          slotName, slotPosition, confirmed.get(), confirmed.get(), slotPosition);
    }
    if (promoted) {
      return new Decision(Verdict.RESUME_FROM_SLOT_AFTER_PROMOTION, retimed);
    }
    return new Decision(Verdict.RESUME, retimed);
  }

  private SlotGapException missing(ServerState server, StoredOffsets stored) {
    if (stored.engine().isPresent() || stored.identity().isPresent()) {
      return refuse(
          "Replication slot '%s' does not exist in database '%s' but the relay has offsets for it"
              + " (last position %s): the slot was dropped, and the WAL of events committed since"
              + " then is no longer retained. Recover: run `herald relay recover`, which creates"
              + " the slot again, republishes the retained outbox rows committed after the last"
              + " event in Kafka and resets the relay offsets (it refuses, naming what is missing,"
              + " when the outbox no longer retains them), then start again.",
          slotName,
          server.database(),
          stored.engine().flatMap(EngineOffset::furthest).map(Lsn::toString).orElse("unknown"));
    }
    return refuse(
        "Replication slot '%s' does not exist in database '%s'. The relay never creates it"
            + " itself, because a slot created at start-up would miss every row committed before."
            + " Recover: run the schema migrations (they create the publication and the slot), then"
            + " start the relay.",
        slotName, server.database());
  }

  private static SlotGapException refuse(String format, Object... args) {
    return new SlotGapException("Relay refuses to start: " + String.format(format, args));
  }
}
