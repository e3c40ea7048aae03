package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /v1/publications:batch}: one transaction, one answer per item. */
@HeraldIntegrationTest
class BatchIT {

  @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();

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

  @Test
  void shouldNotDeadlockWhenBatchesWithTheSameKeysInOppositeOrderRace() throws Exception {
    for (int round = 0; round < 5; round++) {
      List<String> articles = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        articles.add(uniqueArticle());
      }
      List<String> forward = articles.stream().map(a -> body(a, "{\"v\":1}")).toList();
      List<String> backward = new ArrayList<>(forward);
      java.util.Collections.reverse(backward);
      String first = "[" + String.join(",", forward) + "]";
      String second = "[" + String.join(",", backward) + "]";

      CountDownLatch go = new CountDownLatch(1);
      ExecutorService threads = Executors.newFixedThreadPool(2);
      Future<HttpResponse<String>> one =
          threads.submit(
              () -> {
                go.await();
                return writer.post(PublicationApi.BATCH, TOKEN_A, first);
              });
      Future<HttpResponse<String>> two =
          threads.submit(
              () -> {
                go.await();
                return writer.post(PublicationApi.BATCH, TOKEN_A, second);
              });
      go.countDown();
      HttpResponse<String> a = one.get(60, TimeUnit.SECONDS);
      HttpResponse<String> b = two.get(60, TimeUnit.SECONDS);
      threads.shutdown();

      assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
      assertThat(b.statusCode()).as(b.body()).isEqualTo(200);
      List<Integer> statuses = new ArrayList<>();
      results(a).forEach(r -> statuses.add(r.get("status").asInt()));
      results(b).forEach(r -> statuses.add(r.get("status").asInt()));
      // Every key: created by exactly one of the two batches, replayed by the other.
      assertThat(statuses.stream().filter(s -> s == 201)).hasSize(20);
      assertThat(statuses.stream().filter(s -> s == 200)).hasSize(20);
      for (String article : articles) {
        assertThat(jobsOf(article)).isEqualTo(1);
        assertThat(eventsOf(article)).isEqualTo(1);
      }
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
