package io.herald.consumer.delivery;

import io.herald.common.event.PublicationRequested;
import java.util.Objects;
import java.util.UUID;

/**
 * A delivery to create from a received {@code PublicationRequested} event.
 *
 * @param messageId the event id (Kafka header {@code id}), kept for tracing back to the record
 * @param traceParent W3C traceparent of the request, null when absent or invalid
 */
public record NewDelivery(
    UUID id, UUID messageId, PublicationRequested request, String traceParent, String traceState) {

  public NewDelivery {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(request, "request");
  }
}
