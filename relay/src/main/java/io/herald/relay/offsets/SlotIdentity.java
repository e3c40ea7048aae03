package io.herald.relay.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Optional;

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
 */
public record SlotIdentity(
    String systemIdentifier,
    String database,
    String slot,
    Optional<Lsn> createdAt,
    Lsn adoptedAt,
    Instant adoptedOn) {

  JsonNode toJson(ObjectMapper mapper) {
    ObjectNode node = mapper.createObjectNode();
    node.put("systemIdentifier", systemIdentifier);
    node.put("database", database);
    node.put("slot", slot);
    createdAt.ifPresent(lsn -> node.put("createdAt", lsn.toString()));
    node.put("adoptedAt", adoptedAt.toString());
    node.put("adoptedOn", adoptedOn.toString());
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
        Instant.parse(node.required("adoptedOn").asText()));
  }
}
