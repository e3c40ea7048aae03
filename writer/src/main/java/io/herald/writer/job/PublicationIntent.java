package io.herald.writer.job;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.trace.TraceContext;
import java.util.Objects;

/**
 * One validated request to publish: the business key, the content, the SHA-256 of its canonical
 * JSON, and the trace context to store with the job and its event.
 *
 * <p>Immutable once built; {@code content} must not be modified after construction (the hash was
 * computed from it).
 */
public record PublicationIntent(
    PublicationKey key, ObjectNode content, String payloadHash, TraceContext trace) {

  public PublicationIntent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(payloadHash, "payloadHash");
    Objects.requireNonNull(trace, "trace");
  }
}
