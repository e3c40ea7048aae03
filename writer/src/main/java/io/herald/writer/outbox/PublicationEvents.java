package io.herald.writer.outbox;

import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.writer.job.PublicationJob;
import java.io.UncheckedIOException;
import java.util.UUID;

/** Builds the {@code PublicationRequested} outbox event of a newly reserved job. */
public final class PublicationEvents {

  /**
   * The outbox {@code aggregate_type} of writer events. The relay's outbox router may route on it;
   * the consumer's status events use their own type.
   */
  public static final String AGGREGATE_TYPE = "publication";

  private PublicationEvents() {}

  public static OutboxEvent requested(UUID eventId, PublicationJob job) {
    PublicationRequested event =
        new PublicationRequested(
            job.id(),
            job.key(),
            job.idempotencyKey(),
            job.payloadHash(),
            job.content(),
            job.createdAt());
    String payload;
    try {
      payload = Json.mapper().writeValueAsString(event.toJson());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialise PublicationRequested of job " + job.id(), e);
    }
    return new OutboxEvent(
        eventId,
        AGGREGATE_TYPE,
        job.key().aggregateId(),
        EventTypes.PUBLICATION_REQUESTED,
        job.key().tenant(),
        payload,
        job.traceParent(),
        job.traceState(),
        job.createdAt());
  }
}
