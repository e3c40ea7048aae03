package io.herald.writer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.writer.job.PublicationJob;

/** The JSON shapes of a job in responses. */
final class JobJson {

  private JobJson() {}

  /** What POST answers: the job without its content (the client just sent it). */
  static ObjectNode summary(ObjectMapper mapper, PublicationJob job) {
    ObjectNode node = mapper.createObjectNode();
    node.put("jobId", job.id().toString());
    node.put("tenant", job.key().tenant());
    node.put("articleId", job.key().articleId());
    node.put("revisionId", job.key().revisionId());
    node.put("destination", job.key().destination());
    node.put("idempotencyKey", job.idempotencyKey());
    node.put("payloadHash", job.payloadHash());
    node.put("status", job.status());
    node.put("remoteId", job.remoteId());
    node.put("traceparent", job.traceParent());
    node.put("createdAt", job.createdAt().toString());
    node.put("updatedAt", job.updatedAt().toString());
    return node;
  }

  /** What GET answers: the summary and the stored content. */
  static ObjectNode full(ObjectMapper mapper, PublicationJob job) {
    ObjectNode node = summary(mapper, job);
    node.set("content", job.content().deepCopy());
    return node;
  }

  static ObjectNode error(ObjectMapper mapper, String code, String message) {
    ObjectNode node = mapper.createObjectNode();
    node.put("error", code);
    node.put("message", message);
    return node;
  }
}
