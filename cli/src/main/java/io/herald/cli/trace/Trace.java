package io.herald.cli.trace;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The chain of custody of one publication, as {@code herald trace} found it; {@code --json} prints
 * it as is. Every part after the job is null (or empty) when it was not found; {@link #chain()}
 * orders what was found by time and {@link #gaps()} names what was not. Immutable.
 *
 * @param job the writer's row, and its view of the delivery (status, remote id, status event)
 * @param publicationEvent the job's {@code PublicationRequested} record in Kafka, null if not found
 * @param publicationScan where that record was looked for
 * @param inbox the consumer's inbox row of the event, null if none
 * @param delivery the consumer's delivery, null if none
 * @param attempts every call to the destination, in claim order
 * @param operatorActions every operator decision on the delivery, in order
 * @param statusEvents the delivery's status events in Kafka, in offset order
 * @param statusScan where those were looked for, null when no topic is configured
 */
record Trace(
    Job job,
    PublicationEvent publicationEvent,
    Scan publicationScan,
    InboxRow inbox,
    Delivery delivery,
    List<AttemptRow> attempts,
    List<OperatorActionRow> operatorActions,
    List<StatusEvent> statusEvents,
    Scan statusScan,
    List<Step> chain,
    List<String> gaps) {

  Trace {
    Objects.requireNonNull(job, "job");
    attempts = List.copyOf(attempts);
    operatorActions = List.copyOf(operatorActions);
    statusEvents = List.copyOf(statusEvents);
    chain = List.copyOf(chain);
    gaps = List.copyOf(gaps);
  }

  /** {@code writer.publication_job}, the writer's view included. */
  record Job(
      UUID id,
      String tenant,
      String articleId,
      String revisionId,
      String destination,
      String idempotencyKey,
      String payloadHash,
      Instant createdAt,
      Instant updatedAt,
      String status,
      String remoteId,
      Instant statusOccurredAt,
      UUID statusEventId) {

    /** The Kafka record key of every event about this job: {@code tenant/article/destination}. */
    String recordKey() {
      return tenant + "/" + articleId + "/" + destination;
    }

    String businessKey() {
      return tenant + "/" + articleId + "/" + revisionId + "/" + destination;
    }
  }

  /**
   * One Kafka partition read from {@code fromOffset} (the first record at or after the job's
   * creation, less a clock margin) to {@code toOffset} (its end when the scan began).
   */
  record Scan(String topic, int partition, int partitions, long fromOffset, long toOffset) {}

  /**
   * The job's {@code PublicationRequested} record: the first copy's position, and how many records
   * carry the same event id (more than one: the relay sent it again, which the inbox absorbs).
   */
  record PublicationEvent(
      UUID eventId, int partition, long offset, Instant timestamp, int copies, List<Long> offsets) {
    PublicationEvent {
      offsets = List.copyOf(offsets);
    }
  }

  /** {@code consumer.inbox}. */
  record InboxRow(UUID messageId, String handler, Instant receivedAt) {}

  /** {@code consumer.delivery}, as it is now. */
  record Delivery(
      UUID id,
      UUID messageId,
      String state,
      int attempts,
      long claimToken,
      String claimOwner,
      Instant leaseUntil,
      String remoteId,
      String lastError,
      Instant uncertainSince,
      Instant createdAt,
      Instant updatedAt) {}

  /**
   * {@code consumer.delivery_attempt}; {@code recordedState} null when the fence refused it, {@code
   * requestHash} (SHA-256 hex of the request body sent) null for a lookup or a call never sent.
   */
  record AttemptRow(
      int attempt,
      long claimToken,
      String kind,
      String claimOwner,
      Instant startedAt,
      Instant endedAt,
      Integer httpStatus,
      String outcome,
      String recordedState,
      String remoteId,
      String error,
      String requestHash) {}

  /** {@code consumer.operator_action}. */
  record OperatorActionRow(
      UUID id,
      String action,
      String actor,
      String reason,
      String remoteId,
      String fromState,
      String toState,
      Instant actedAt) {}

  /** One status event of the delivery in Kafka, with what its payload says. */
  record StatusEvent(
      UUID eventId,
      int partition,
      long offset,
      Instant timestamp,
      String eventType,
      String state,
      String remoteId,
      Integer attempts,
      String reason,
      Instant occurredAt,
      int copies) {}

  /** One line of the time-ordered chain: when, where ({@code writer}, {@code kafka}...), what. */
  record Step(Instant at, String where, String what) {}
}
