package io.herald.writer.job;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A publication job as stored in {@code writer.publication_job}.
 *
 * @param remoteId the destination's id once published; {@code null} until then
 * @param traceState W3C {@code tracestate}; {@code null} when the request carried none
 */
public record PublicationJob(
    UUID id,
    PublicationKey key,
    String idempotencyKey,
    String payloadHash,
    ObjectNode content,
    String status,
    String remoteId,
    String traceParent,
    String traceState,
    Instant createdAt,
    Instant updatedAt) {

  public PublicationJob {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(payloadHash, "payloadHash");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(traceParent, "traceParent");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }

  public Optional<String> remote() {
    return Optional.ofNullable(remoteId);
  }
}
