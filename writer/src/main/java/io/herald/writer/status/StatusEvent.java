package io.herald.writer.status;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One validated status event from {@code herald.delivery.events}, reduced to what the status view
 * stores.
 *
 * @param messageId the event's {@code id} header: the inbox key
 * @param state a delivery state, or {@code CONFLICT}; one of {@link StatusDecoder#STATES}
 * @param remoteId the destination's id of the article; {@code null} when the event carries none
 * @param occurredAt when the consumer changed the state, truncated to microseconds (PostgreSQL's
 *     precision) so the comparison in the database and here agree
 */
record StatusEvent(
    UUID messageId, UUID jobId, String tenant, String state, String remoteId, Instant occurredAt) {

  StatusEvent {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(occurredAt, "occurredAt");
  }
}
