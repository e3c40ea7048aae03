package io.herald.writer.http;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.writer.job.PublicationJob;
import java.util.List;
import java.util.UUID;

/**
 * The JSON bodies the API answers with besides errors ({@link
 * io.herald.runtime.http.HttpProblem.ErrorBody}), as records Jackson writes in component order.
 * Field names, order and nulls are the API's contract (docs/design.md "Writer API"); {@code
 * ApiBodiesTest} pins them.
 */
final class ApiBodies {

  private ApiBodies() {}

  /** What POST answers: the job without its content (the client just sent it). */
  record Job(
      UUID jobId,
      String tenant,
      String articleId,
      String revisionId,
      String destination,
      String idempotencyKey,
      String payloadHash,
      String status,
      String remoteId,
      String traceparent,
      String createdAt,
      String updatedAt) {

    static Job of(PublicationJob job) {
      return new Job(
          job.id(),
          job.key().tenant(),
          job.key().articleId(),
          job.key().revisionId(),
          job.key().destination(),
          job.idempotencyKey(),
          job.payloadHash(),
          job.status(),
          job.remoteId(),
          job.traceParent(),
          job.createdAt().toString(),
          job.updatedAt().toString());
    }
  }

  /** What GET answers: the job's fields and the stored content. */
  record JobWithContent(@JsonUnwrapped Job job, ObjectNode content) {

    static JobWithContent of(PublicationJob job) {
      return new JobWithContent(Job.of(job), job.content());
    }
  }

  /** 409 {@code payload_conflict}: the error body and both payload hashes. */
  record Conflict(
      String error,
      String message,
      UUID jobId,
      String storedPayloadHash,
      String requestPayloadHash) {

    static final String MESSAGE =
        "a job for this tenant, articleId, revisionId and destination exists with other"
            + " content; publish changed content as a new revision";

    static Conflict of(PublicationJob stored, String requestPayloadHash) {
      return new Conflict(
          ApiError.PAYLOAD_CONFLICT.code(),
          MESSAGE,
          stored.id(),
          stored.payloadHash(),
          requestPayloadHash);
    }
  }

  /** What a batch answers: one result per item, in request order. */
  record Batch(List<Item> results) {}

  /** One batch item's result: its position and the status it would have had alone. */
  sealed interface Item {
    int index();

    int status();
  }

  /** 201 or 200: the item's job. */
  record Reserved(int index, int status, Job job) implements Item {}

  /** 409: the conflict's fields beside index and status. */
  record Conflicting(int index, int status, @JsonUnwrapped Conflict conflict) implements Item {}

  /** 400: the item's error code and message. */
  record Refused(int index, int status, String error, String message) implements Item {}
}
