package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code POST /v1/publications:batch}: one transaction, one answer per item. */
@HeraldIntegrationTest
class BatchIT {

  private static RunningWriter writer;

  @BeforeAll
  static void start(StackContext stack) {
    writer = RunningWriter.start(stack);
  }

  @AfterAll
  static void stop() {
    writer.close();
  }

  @Test
  void shouldAnswerEveryItemAndWriteOneJobAndEventPerNewKey() {
    String a = uniqueArticle();
    String b = uniqueArticle();
    String batch =
        "["
            + String.join(
                ",",
                body(a, "{\"v\":1}"),
                body(a, "{ \"v\" : 1 }"), // the same intent again: answered from the first
                body(a, "{\"v\":2}"), // same key, other content
                "{\"articleId\":\"x\"}", // invalid
                body(b, "{\"v\":1}"))
            + "]";

    HttpResponse<String> response = writer.post(PublicationApi.BATCH, TOKEN_A, batch);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<JsonNode> results = results(response);
    assertThat(results).extracting(r -> r.get("index").asInt()).containsExactly(0, 1, 2, 3, 4);
    assertThat(results)
        .extracting(r -> r.get("status").asInt())
        .containsExactly(201, 200, 409, 400, 201);
    assertThat(results.get(1).get("job").get("jobId"))
        .isEqualTo(results.get(0).get("job").get("jobId"));
    assertThat(results.get(2).get("error").asText()).isEqualTo("payload_conflict");
    assertThat(results.get(2).get("jobId")).isEqualTo(results.get(0).get("job").get("jobId"));
    assertThat(results.get(3).get("error").asText()).isEqualTo("invalid_request");
    assertThat(jobsOf(a)).isEqualTo(1);
    assertThat(jobsOf(b)).isEqualTo(1);
    assertThat(eventsOf(a)).isEqualTo(1);
    assertThat(eventsOf(b)).isEqualTo(1);
  }

  @Test
  void shouldReplayAWholeBatchWithoutWritingAgain() {
    List<String> articles = List.of(uniqueArticle(), uniqueArticle(), uniqueArticle());
    String batch =
        "[" + String.join(",", articles.stream().map(a -> body(a, "{\"v\":1}")).toList()) + "]";

    HttpResponse<String> first = writer.post(PublicationApi.BATCH, TOKEN_A, batch);
    HttpResponse<String> again = writer.post(PublicationApi.BATCH, TOKEN_A, batch);

    assertThat(results(first)).extracting(r -> r.get("status").asInt()).containsOnly(201);
    assertThat(results(again)).extracting(r -> r.get("status").asInt()).containsOnly(200);
    for (String article : articles) {
      assertThat(jobsOf(article)).isEqualTo(1);
      assertThat(eventsOf(article)).isEqualTo(1);
    }
  }

  private static List<JsonNode> results(HttpResponse<String> response) {
    List<JsonNode> results = new ArrayList<>();
    json(response.body()).get("results").forEach(results::add);
    return results;
  }

  private static long jobsOf(String article) {
    return writer.count(
        "SELECT count(*) FROM writer.publication_job WHERE article_id = ?", article);
  }

  private static long eventsOf(String article) {
    return writer.count(
        "SELECT count(*) FROM writer.outbox WHERE payload->>'articleId' = ?", article);
  }
}
