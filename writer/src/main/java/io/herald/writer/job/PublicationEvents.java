package io.herald.writer.job;

import com.fasterxml.jackson.core.JsonGenerator;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.Json;
import io.herald.writer.outbox.OutboxEvent;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.UUID;

/**
 * Builds the {@code PublicationRequested} outbox event of a newly reserved job. Here, beside the
 * job, rather than in {@code outbox}: the outbox stores events of any kind and knows no job.
 */
public final class PublicationEvents {

  /**
   * The outbox {@code aggregate_type} of writer events. The relay's outbox router may route on it;
   * the consumer's status events use their own type.
   */
  public static final String AGGREGATE_TYPE = "publication";

  private PublicationEvents() {}

  public static OutboxEvent requested(UUID eventId, PublicationJob job) {
    return new OutboxEvent(
        eventId,
        AGGREGATE_TYPE,
        job.key().aggregateId(),
        EventTypes.PUBLICATION_REQUESTED,
        job.key().tenant(),
        payload(job),
        job.traceParent(),
        job.traceState(),
        job.createdAt());
  }

  /**
   * The {@link PublicationRequested} value, written field by field in the order of {@link
   * PublicationRequested#toJson()}. Streamed instead of built through the record: the record's
   * constructor re-canonicalizes and re-hashes the content (and copies it three times) to check a
   * hash this writer computed from the same content moments before, which on the hot path cost
   * about a tenth of a request's CPU. {@code PublicationEventsTest} holds the output to the
   * record's contract ({@link PublicationRequested#fromJson} accepts it and equals the record).
   */
  static String payload(PublicationJob job) {
    StringWriter out = new StringWriter(256 + job.content().size() * 32);
    try (JsonGenerator json = Json.mapper().createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("jobId", job.id().toString());
      json.writeStringField("tenant", job.key().tenant());
      json.writeStringField("articleId", job.key().articleId());
      json.writeStringField("revisionId", job.key().revisionId());
      json.writeStringField("destination", job.key().destination());
      json.writeStringField("idempotencyKey", job.idempotencyKey());
      json.writeStringField("payloadHash", job.payloadHash());
      json.writeFieldName("content");
      Json.mapper().writeTree(json, job.content());
      json.writeStringField("requestedAt", job.createdAt().toString());
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialise PublicationRequested of job " + job.id(), e);
    }
    return out.toString();
  }
}
