package io.herald.consumer.delivery;

import java.util.UUID;

/** A delivery row as a transition left it: what its status event reports. */
public record DeliverySnapshot(
    UUID deliveryId,
    UUID jobId,
    String tenant,
    String articleId,
    String revisionId,
    String destination,
    DeliveryState state,
    String remoteId,
    int attempts,
    String traceParent,
    String traceState) {

  /** The Kafka key of the status event: {@code tenant/articleId/destination}. */
  public String aggregateId() {
    return tenant + "/" + articleId + "/" + destination;
  }
}
