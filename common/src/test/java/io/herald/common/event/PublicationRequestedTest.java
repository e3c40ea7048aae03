package io.herald.common.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.json.Json;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PublicationRequestedTest {

  private static final UUID JOB = UUID.fromString("01930f6a-1c2b-7def-8123-456789abcdef");

  private static PublicationRequested event() throws Exception {
    ObjectNode content =
        (ObjectNode) Json.mapper().readTree("{\"title\":\"Hello\",\"body\":\"World\"}");
    return PublicationRequested.of(
        JOB,
        new PublicationKey("t1", "a-84", "r-3", "dest-a"),
        content,
        Instant.parse("2026-11-30T10:00:00Z"));
  }

  @Test
  void shouldRoundTripThroughJson() throws Exception {
    PublicationRequested event = event();

    PublicationRequested read =
        PublicationRequested.fromJson(Json.mapper().readTree(event.toJson().toString()));

    assertEquals(event, read);
    assertEquals("t1", event.toJson().get("tenant").asText());
    assertEquals(JOB.toString(), event.toJson().get("jobId").asText());
  }

  @Test
  void shouldRejectAMissingField() throws Exception {
    ObjectNode json = event().toJson();
    json.remove("revisionId");

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(json));
    assertTrue(e.getMessage().contains("revisionId"), e.getMessage());
  }

  @Test
  void shouldRejectAFieldOfTheWrongType() throws Exception {
    ObjectNode json = event().toJson();
    json.put("tenant", 42);

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(json));
    assertTrue(e.getMessage().contains("tenant"), e.getMessage());
  }

  @Test
  void shouldRejectContentThatDoesNotMatchItsHash() throws Exception {
    ObjectNode json = event().toJson();
    ((ObjectNode) json.get("content")).put("title", "Tampered");

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(json));
    assertTrue(e.getMessage().contains("payloadHash"), e.getMessage());
  }

  @Test
  void shouldRejectAnIdempotencyKeyOfAnotherBusinessKey() throws Exception {
    ObjectNode json = event().toJson();
    json.put("idempotencyKey", new PublicationKey("t1", "a-84", "r-4", "dest-a").idempotencyKey());

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(json));
    assertTrue(e.getMessage().contains("idempotencyKey"), e.getMessage());
  }

  @Test
  void shouldRejectAnInvalidTimestampAndJobId() throws Exception {
    ObjectNode badTime = event().toJson().put("requestedAt", "yesterday");
    ObjectNode badId = event().toJson().put("jobId", "1-1-1-1-1");

    assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(badTime));
    assertThrows(IllegalArgumentException.class, () -> PublicationRequested.fromJson(badId));
  }

  @Test
  void shouldNotExposeItsContentForMutation() throws Exception {
    PublicationRequested event = event();
    event.content().put("title", "changed");

    assertEquals("Hello", event.content().get("title").asText());
  }
}
