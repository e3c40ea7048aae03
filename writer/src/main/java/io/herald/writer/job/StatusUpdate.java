package io.herald.writer.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The part of a consumer status event (topic {@code herald.delivery.events}) the writer's status
 * view keeps: which job, its delivery state, the destination's id once published.
 *
 * @param remoteId {@code null} until the destination returned one
 */
public record StatusUpdate(
    UUID jobId, String tenant, String state, String remoteId, Instant occurredAt) {

  /**
   * The delivery states of DESIGN.md, plus CONFLICT; the job table's check constraint allows these.
   */
  public static final Set<String> STATES =
      Set.of(
          "PENDING",
          "DISPATCHING",
          "RETRY_WAIT",
          "UNCERTAIN",
          "NEEDS_RECONCILIATION",
          "PUBLISHED",
          "FAILED",
          "ABANDONED",
          "CONFLICT");

  public StatusUpdate {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(occurredAt, "occurredAt");
    if (!STATES.contains(state)) {
      throw new IllegalArgumentException("state is not a delivery state: " + state);
    }
  }

  /**
   * Reads {@code {"jobId","tenant","state","remoteId","occurredAt",...}}; other fields are ignored.
   *
   * @throws IllegalArgumentException naming the first missing or invalid field
   */
  public static StatusUpdate fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw new IllegalArgumentException("a status event must be a JSON object");
    }
    UUID jobId;
    try {
      jobId = UUID.fromString(text(json, "jobId"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("jobId is not a UUID: " + json.get("jobId"), e);
    }
    JsonNode remote = json.get("remoteId");
    if (remote != null && !remote.isNull() && !remote.isTextual()) {
      throw new IllegalArgumentException("remoteId must be a string or null");
    }
    Instant occurredAt;
    try {
      occurredAt = Instant.parse(text(json, "occurredAt"));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("occurredAt is not an ISO-8601 instant", e);
    }
    return new StatusUpdate(
        jobId,
        text(json, "tenant"),
        text(json, "state"),
        remote == null || remote.isNull() ? null : remote.textValue(),
        occurredAt);
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException(field + " is required as a string");
    }
    return value.textValue();
  }
}
