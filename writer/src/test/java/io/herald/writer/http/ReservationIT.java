package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.event.EventTypes;
import io.herald.common.event.PublicationKey;
import io.herald.common.event.PublicationRequested;
import io.herald.common.json.CanonicalJson;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Guarantee 1 over real HTTP and a real PostgreSQL: one intent, one job, one outbox event. */
@HeraldIntegrationTest
class ReservationIT {

  private static final String CONTENT = "{\"title\":\"Hello\",\"body\":\"World\",\"tags\":[1,2]}";
  private static final String JOBS_OF_ARTICLE =
      "SELECT count(*) FROM writer.publication_job WHERE tenant_id = ? AND article_id = ?";
  private static final String EVENTS_OF_JOB =
      "SELECT count(*) FROM writer.outbox WHERE payload->>'jobId' = ?";
  private static final String EVENTS_OF_ARTICLE =
      "SELECT count(*) FROM writer.outbox WHERE payload->>'articleId' = ?";

  @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();

  @Test
  void shouldCreateOneJobAndOneOutboxRowWhenTwoIdenticalRequestsRace() throws Exception {
    assertOneJobWhenRacing(2);
  }

  @Test
  void shouldCreateOneJobAndOneOutboxRowWhenFiftyIdenticalRequestsRace() throws Exception {
    assertOneJobWhenRacing(50);
  }

  private void assertOneJobWhenRacing(int clients) throws Exception {
    String article = uniqueArticle();
    String request = body(article, CONTENT);
    List<HttpResponse<String>> responses = race(clients, request);

    assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(201, 200);
    assertThat(responses.stream().filter(r -> r.statusCode() == 201)).hasSize(1);
    assertThat(responses.stream().filter(r -> r.statusCode() == 200)).hasSize(clients - 1);
    List<String> jobIds =
        responses.stream().map(r -> json(r.body()).get("jobId").asText()).distinct().toList();
    assertThat(jobIds).hasSize(1);
    assertThat(writer.count(JOBS_OF_ARTICLE, TENANT_A, article)).isEqualTo(1);
    assertThat(writer.count(EVENTS_OF_JOB, jobIds.getFirst())).isEqualTo(1);
    assertThat(writer.count(EVENTS_OF_ARTICLE, article)).isEqualTo(1);
  }

  /**
   * Group commit: concurrent single POSTs share transactions (their outbox rows share a transaction
   * id), and each is still answered as if alone: one job and one event per key, the first of a key
   * created, its twin replayed.
   */
  @Test
  void shouldShareTransactionsAmongConcurrentRequestsAndAnswerEachAsIfAlone() throws Exception {
    int articles = 40;
    List<String> requests = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < articles; i++) {
      String article = uniqueArticle();
      names.add(article);
      requests.add(body(article, CONTENT));
      requests.add(body(article, CONTENT));
    }
    List<HttpResponse<String>> responses = race(requests);

    assertThat(responses.stream().filter(r -> r.statusCode() == 201)).hasSize(articles);
    assertThat(responses.stream().filter(r -> r.statusCode() == 200)).hasSize(articles);
    for (String article : names) {
      assertThat(writer.count(JOBS_OF_ARTICLE, TENANT_A, article)).as(article).isEqualTo(1);
      assertThat(writer.count(EVENTS_OF_ARTICLE, article)).as(article).isEqualTo(1);
    }
    long transactions =
        writer.count(
            "SELECT count(DISTINCT xmin::text) FROM writer.outbox"
                + " WHERE payload->>'articleId' = ANY (?::text[])",
            "{" + String.join(",", names) + "}");
    assertThat(transactions).isLessThan(articles);
  }

  /** Sends {@code request} from {@code clients} threads released at the same instant. */
  private static List<HttpResponse<String>> race(int clients, String request) throws Exception {
    return race(Collections.nCopies(clients, request));
  }

  /** Sends each request from a thread of its own, all released at the same instant. */
  private static List<HttpResponse<String>> race(List<String> requests) throws Exception {
    int clients = requests.size();
    CountDownLatch ready = new CountDownLatch(clients);
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(clients);
    try {
      List<Future<HttpResponse<String>>> futures = new ArrayList<>();
      for (String request : requests) {
        futures.add(
            threads.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, request);
                }));
      }
      ready.await();
      go.countDown();
      List<HttpResponse<String>> responses = new ArrayList<>();
      for (Future<HttpResponse<String>> future : futures) {
        responses.add(future.get());
      }
      return responses;
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void shouldReturnConflictAndChangeNothingWhenSameKeyArrivesWithOtherPayload() {
    String article = uniqueArticle();
    HttpResponse<String> created =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, CONTENT));
    assertThat(created.statusCode()).isEqualTo(201);
    String jobId = json(created.body()).get("jobId").asText();
    Map<String, Object> before =
        writer.row(
            "SELECT payload_hash, content::text AS content, status, updated_at"
                + " FROM writer.publication_job WHERE id = ?::uuid",
            jobId);

    HttpResponse<String> conflict =
        writer.post(
            PublicationApi.PUBLICATIONS,
            TOKEN_A,
            body(article, "{\"title\":\"Hello\",\"body\":\"Changed\",\"tags\":[1,2]}"));

    assertThat(conflict.statusCode()).isEqualTo(409);
    JsonNode error = json(conflict.body());
    assertThat(error.get("error").asText()).isEqualTo("payload_conflict");
    assertThat(error.get("message").asText()).isNotBlank();
    assertThat(error.get("jobId").asText()).isEqualTo(jobId);
    assertThat(
            writer.row(
                "SELECT payload_hash, content::text AS content, status, updated_at"
                    + " FROM writer.publication_job WHERE id = ?::uuid",
                jobId))
        .isEqualTo(before);
    assertThat(before.get("payload_hash")).isEqualTo(CanonicalJson.sha256Hex(json(CONTENT)));
    assertThat(writer.count(JOBS_OF_ARTICLE, TENANT_A, article)).isEqualTo(1);
    assertThat(writer.count(EVENTS_OF_ARTICLE, article)).isEqualTo(1);
  }

  @Test
  void shouldTreatPayloadsDifferingOnlyInKeyOrderAndWhitespaceAsTheSamePayload() {
    String article = uniqueArticle();
    HttpResponse<String> created =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, CONTENT));
    String reordered =
        """
        {
          "content" : { "tags" : [ 1, 2 ],
                        "body":"World",   "title" : "Hello" },
          "destination": "dest-a",
          "revisionId" : "r-1",
          "articleId"  : %s
        }
        """
            .formatted(Publications.quote(article));

    HttpResponse<String> replayed = writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, reordered);

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(replayed.statusCode()).isEqualTo(200);
    assertThat(json(replayed.body()).get("jobId")).isEqualTo(json(created.body()).get("jobId"));
    assertThat(writer.count(JOBS_OF_ARTICLE, TENANT_A, article)).isEqualTo(1);
    assertThat(writer.count(EVENTS_OF_ARTICLE, article)).isEqualTo(1);
  }

  @Test
  void shouldCreateSeparateJobAndEventForNewRevision() {
    String article = uniqueArticle();
    HttpResponse<String> first =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-3", "dest-a", CONTENT));
    HttpResponse<String> second =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-4", "dest-a", CONTENT));

    assertNewJobs(article, first, second);
  }

  @Test
  void shouldCreateSeparateJobAndEventForNewDestination() {
    String article = uniqueArticle();
    HttpResponse<String> first =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-3", "dest-a", CONTENT));
    HttpResponse<String> second =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-3", "dest-b", CONTENT));

    assertNewJobs(article, first, second);
  }

  private static void assertNewJobs(
      String article, HttpResponse<String> first, HttpResponse<String> second) {
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(second.statusCode()).isEqualTo(201);
    String firstJob = json(first.body()).get("jobId").asText();
    String secondJob = json(second.body()).get("jobId").asText();
    assertThat(firstJob).isNotEqualTo(secondJob);
    assertThat(json(first.body()).get("idempotencyKey"))
        .isNotEqualTo(json(second.body()).get("idempotencyKey"));
    assertThat(writer.count(JOBS_OF_ARTICLE, TENANT_A, article)).isEqualTo(2);
    assertThat(writer.count(EVENTS_OF_JOB, firstJob)).isEqualTo(1);
    assertThat(writer.count(EVENTS_OF_JOB, secondJob)).isEqualTo(1);
  }

  @Test
  void shouldWriteOutboxEventThatDescribesTheNewJob() {
    String article = uniqueArticle();
    HttpResponse<String> created =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-3", "dest-a", CONTENT));
    assertThat(created.statusCode()).isEqualTo(201);
    String jobId = json(created.body()).get("jobId").asText();
    assertThat(created.headers().firstValue("Location"))
        .hasValue(PublicationApi.PUBLICATIONS + "/" + jobId);

    Map<String, Object> event =
        writer.row(
            "SELECT id, aggregate_type, aggregate_id, event_type, tenant_id, payload::text AS payload"
                + " FROM writer.outbox WHERE payload->>'jobId' = ?",
            jobId);

    PublicationKey key = new PublicationKey(TENANT_A, article, "r-3", "dest-a");
    assertThat(((UUID) event.get("id")).version()).isEqualTo(7);
    assertThat(event.get("aggregate_type")).isEqualTo("publication");
    assertThat(event.get("aggregate_id")).isEqualTo(TENANT_A + "/" + article + "/dest-a");
    assertThat(event.get("event_type")).isEqualTo(EventTypes.PUBLICATION_REQUESTED);
    assertThat(event.get("tenant_id")).isEqualTo(TENANT_A);
    PublicationRequested payload =
        PublicationRequested.fromJson(json((String) event.get("payload")));
    assertThat(payload.jobId()).isEqualTo(UUID.fromString(jobId));
    assertThat(payload.key()).isEqualTo(key);
    assertThat(payload.idempotencyKey()).isEqualTo(key.idempotencyKey());
    assertThat(payload.payloadHash()).isEqualTo(CanonicalJson.sha256Hex(json(CONTENT)));
    assertThat(CanonicalJson.canonicalize(payload.content()))
        .isEqualTo(CanonicalJson.canonicalize(json(CONTENT)));
  }
}
