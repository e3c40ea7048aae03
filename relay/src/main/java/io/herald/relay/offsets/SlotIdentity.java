package io.herald.relay.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Which slot on which PostgreSQL cluster the stored offsets belong to, written next to the offsets
 * the first time a relay adopts a slot.
 *
 * @param systemIdentifier the cluster's {@code system_identifier}
 * @param database the database the slot decodes
 * @param slot the slot name
 * @param createdAt the slot's consistent point as the schema set-up registered it in {@code
 *     herald_relay.capture_slot} (the marker of this slot's creation), empty when the slot was not
 *     created by the schema set-up
 * @param adoptedAt the slot's {@code confirmed_flush_lsn} when the relay first used it
 * @param adoptedOn when that was
 * @param timeline the server's timeline when the relay last started streaming on it; empty in an
 *     identity stored before the relay recorded it
 */
public record SlotIdentity(
    String systemIdentifier,
    String database,
    String slot,
    Optional<Lsn> createdAt,
    Lsn adoptedAt,
    Instant adoptedOn,
    OptionalLong timeline) {

  /** This identity on timeline {@code next}. */
  public SlotIdentity onTimeline(long next) {
    return new SlotIdentity(
        systemIdentifier, database, slot, createdAt, adoptedAt, adoptedOn, OptionalLong.of(next));
  }

  JsonNode toJson(ObjectMapper mapper) {
    ObjectNode node = mapper.createObjectNode();
    node.put("systemIdentifier", systemIdentifier);
    node.put("database", database);
    node.put("slot", slot);
    createdAt.ifPresent(lsn -> node.put("createdAt", lsn.toString()));
    node.put("adoptedAt", adoptedAt.toString());
    node.put("adoptedOn", adoptedOn.toString());
    timeline.ifPresent(t -> node.put("timeline", t));
    return node;
  }

  static SlotIdentity fromJson(JsonNode node) {
    return new SlotIdentity(
        node.required("systemIdentifier").asText(),
        node.required("database").asText(),
        node.required("slot").asText(),
        node.hasNonNull("createdAt")
            ? Optional.of(Lsn.parse(node.get("createdAt").asText()))
            : Optional.empty(),
        Lsn.parse(node.required("adoptedAt").asText()),
        Instant.parse(node.required("adoptedOn").asText()),
        node.hasNonNull("timeline")
            ? OptionalLong.of(node.get("timeline").asLong())
            : OptionalLong.empty());
  }
}
