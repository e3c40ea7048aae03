package io.herald.writer.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.Json;
import io.herald.runtime.http.HttpProblem;
import io.herald.writer.job.PublicationJob;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The API's bodies as Jackson writes them from records: the same field names, order, nulls and
 * values the trees built field by field had, since clients read them.
 */
class ApiBodiesTest {

  private static final String JOB_ID = "7d1c2a8e-3f4b-4c5d-9e6f-0a1b2c3d4e5f";
  private static final String JOB =
      "\"jobId\":\""
          + JOB_ID
          + "\",\"tenant\":\"t1\",\"articleId\":\"a-1\",\"revisionId\":\"r-1\","
          + "\"destination\":\"dest-a\",\"idempotencyKey\":\"idem\",\"payloadHash\":\"h1\","
          + "\"status\":\"PENDING\",\"remoteId\":null,"
          + "\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\","
          + "\"createdAt\":\"2026-12-01T10:00:00.123456Z\",\"updatedAt\":\"2026-12-01T10:00:01Z\"";

  private final PublicationJob job = job();

  @Test
  void shouldWriteTheJobSummaryWithoutContentAndTheFullJobWithIt() throws Exception {
    assertThat(write(ApiBodies.Job.of(job))).isEqualTo("{" + JOB + "}");
    assertThat(write(ApiBodies.JobWithContent.of(job)))
        .isEqualTo("{" + JOB + ",\"content\":{\"title\":\"T\",\"tags\":[1,2]}}");
  }

  @Test
  void shouldWriteTheConflictAsAnErrorBodyWithBothHashes() throws Exception {
    assertThat(write(ApiBodies.Conflict.of(job, "h2")))
        .isEqualTo(
            "{\"error\":\"payload_conflict\",\"message\":\"a job for this tenant, articleId,"
                + " revisionId and destination exists with other content; publish changed content"
                + " as a new revision\",\"jobId\":\""
                + JOB_ID
                + "\",\"storedPayloadHash\":\"h1\",\"requestPayloadHash\":\"h2\"}");
  }

  @Test
  void shouldWriteEachBatchItemWithIndexAndStatusFirst() throws Exception {
    HttpProblem invalid = ApiError.INVALID_REQUEST.problem("content is required");
    ApiBodies.Batch batch =
        new ApiBodies.Batch(
            List.of(
                new ApiBodies.Reserved(0, 201, ApiBodies.Job.of(job)),
                new ApiBodies.Conflicting(1, 409, ApiBodies.Conflict.of(job, "h2")),
                new ApiBodies.Refused(2, invalid.status(), invalid.code(), invalid.getMessage())));

    assertThat(write(batch))
        .isEqualTo(
            "{\"results\":["
                + "{\"index\":0,\"status\":201,\"job\":{"
                + JOB
                + "}},"
                + "{\"index\":1,\"status\":409,\"error\":\"payload_conflict\",\"message\":\""
                + ApiBodies.Conflict.MESSAGE
                + "\",\"jobId\":\""
                + JOB_ID
                + "\",\"storedPayloadHash\":\"h1\",\"requestPayloadHash\":\"h2\"},"
                + "{\"index\":2,\"status\":400,\"error\":\"invalid_request\","
                + "\"message\":\"content is required\"}]}");
  }

  @Test
  void shouldMapEveryCatalogueEntryOntoAProblemAndBack() {
    for (ApiError error : ApiError.values()) {
      HttpProblem problem = error.problem("m");
      assertThat(problem.status()).isEqualTo(error.status());
      assertThat(problem.code()).isEqualTo(error.code());
      assertThat(ApiError.of(problem)).isEqualTo(error);
    }
    assertThat(ApiError.UNAUTHORIZED.problem("m").headers())
        .containsEntry("WWW-Authenticate", "Bearer realm=\"herald\"");
    assertThat(ApiError.of(new HttpProblem(418, "teapot", "m"))).isEqualTo(ApiError.INTERNAL_ERROR);
  }

  private static String write(Object body) throws Exception {
    return Json.mapper().writeValueAsString(body);
  }

  private static PublicationJob job() {
    ObjectNode content = Json.mapper().createObjectNode();
    content.put("title", "T");
    content.putArray("tags").add(1).add(2);
    return new PublicationJob(
        UUID.fromString(JOB_ID),
        new PublicationKey("t1", "a-1", "r-1", "dest-a"),
        "idem",
        "h1",
        content,
        "PENDING",
        null,
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        null,
        Instant.parse("2026-12-01T10:00:00.123456Z"),
        Instant.parse("2026-12-01T10:00:01Z"));
  }
}
