package io.herald.common.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.json.CanonicalJson;
import io.herald.common.json.Json;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The value of a {@link EventTypes#PUBLICATION_REQUESTED} Kafka record (the writer's outbox {@code
 * payload}):
 *
 * <pre>{@code
 * {"jobId":"<uuid>","tenant":"t1","articleId":"a-84","revisionId":"r-3","destination":"dest-a",
 *  "idempotencyKey":"<64 hex>","payloadHash":"<64 hex>","content":{...},
 *  "requestedAt":"2026-11-30T10:00:00Z"}
 * }</pre>
 *
 * <p>Immutable and thread-safe. The constructor checks every field, including that {@code
 * idempotencyKey} is the one derived from the business key and {@code payloadHash} is the canonical
 * hash of {@code content}: an event that fails those checks describes something other than what it
 * claims and must go to the dead-letter topic, not to a destination. {@code content} is defensively
 * copied and must be a JSON object.
 */
public record PublicationRequested(
    UUID jobId,
    PublicationKey key,
    String idempotencyKey,
    String payloadHash,
    ObjectNode content,
    Instant requestedAt) {

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  public PublicationRequested {
    Objects.requireNonNull(jobId, "jobId is required");
    Objects.requireNonNull(key, "key is required");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey is required");
    Objects.requireNonNull(payloadHash, "payloadHash is required");
    Objects.requireNonNull(content, "content is required");
    Objects.requireNonNull(requestedAt, "requestedAt is required");
    if (!SHA256_HEX.matcher(idempotencyKey).matches()) {
      throw new IllegalArgumentException(
          "idempotencyKey must be 64 lowercase hex characters: " + idempotencyKey);
    }
    if (!SHA256_HEX.matcher(payloadHash).matches()) {
      throw new IllegalArgumentException(
          "payloadHash must be 64 lowercase hex characters: " + payloadHash);
    }
    if (!idempotencyKey.equals(key.idempotencyKey())) {
      throw new IllegalArgumentException(
          "idempotencyKey " + idempotencyKey + " does not belong to " + key.aggregateId());
    }
    content = content.deepCopy();
    String actualHash = CanonicalJson.sha256Hex(content);
    if (!payloadHash.equals(actualHash)) {
      throw new IllegalArgumentException(
          "payloadHash " + payloadHash + " does not match the content (hash " + actualHash + ")");
    }
  }

  /** An event for a new job, deriving the idempotency key and the payload hash. */
  public static PublicationRequested of(
      UUID jobId, PublicationKey key, ObjectNode content, Instant requestedAt) {
    return new PublicationRequested(
        jobId, key, key.idempotencyKey(), CanonicalJson.sha256Hex(content), content, requestedAt);
  }

  /** The Kafka record key, {@code tenant/articleId/destination}. */
  public String aggregateId() {
    return key.aggregateId();
  }

  /** A copy of the content (the record never hands out its own mutable node). */
  @Override
  public ObjectNode content() {
    return content.deepCopy();
  }

  /** The event as the JSON object written to the outbox {@code payload} column. */
  public ObjectNode toJson() {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("jobId", jobId.toString());
    json.put("tenant", key.tenant());
    json.put("articleId", key.articleId());
    json.put("revisionId", key.revisionId());
    json.put("destination", key.destination());
    json.put("idempotencyKey", idempotencyKey);
    json.put("payloadHash", payloadHash);
    json.set("content", content.deepCopy());
    json.put("requestedAt", requestedAt.toString());
    return json;
  }

  /**
   * Reads and validates an event value. Fields not listed above are ignored (a newer writer may add
   * some); every listed field must be present with its JSON type (no coercion).
   *
   * @throws IllegalArgumentException naming the first field that is missing or invalid
   */
  public static PublicationRequested fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw new IllegalArgumentException("PublicationRequested must be a JSON object");
    }
    UUID jobId = uuid(json, "jobId");
    PublicationKey key =
        new PublicationKey(
            text(json, "tenant"),
            text(json, "articleId"),
            text(json, "revisionId"),
            text(json, "destination"));
    JsonNode content = json.get("content");
    if (content == null || !content.isObject()) {
      throw new IllegalArgumentException("content must be a JSON object");
    }
    Instant requestedAt;
    String requestedAtText = text(json, "requestedAt");
    try {
      requestedAt = Instant.parse(requestedAtText);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "requestedAt is not an ISO-8601 instant: " + requestedAtText, e);
    }
    return new PublicationRequested(
        jobId,
        key,
        text(json, "idempotencyKey"),
        text(json, "payloadHash"),
        (ObjectNode) content,
        requestedAt);
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException(field + " is required");
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string, was " + value.getNodeType());
    }
    return value.textValue();
  }

  private static UUID uuid(JsonNode json, String field) {
    String value = text(json, field);
    try {
      UUID uuid = UUID.fromString(value);
      // UUID.fromString accepts short forms like "1-1-1-1-1"; insist on the canonical spelling.
      if (!uuid.toString().equals(value)) {
        throw new IllegalArgumentException(field + " is not a canonical lowercase UUID: " + value);
      }
      return uuid;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + " is not a UUID: " + value, e);
    }
  }
}
