package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.devstack.StackContext;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL stopped under load (a fast or an immediate shutdown): the writer answers 503 with
 * {@code Retry-After}, stays up, recovers by itself after the restart, and never leaves a job
 * without its outbox event.
 */
@HeraldIntegrationTest
class DatabaseOutageIT {

  private static final String CONTENT = "{\"title\":\"t\"}";
  private static final int CLIENTS = 4;

  @RegisterExtension
  static final RunningWriter writer =
      RunningWriter.perClass(Map.of("writer.db.connect-timeout", "1s"));

  private static StackContext stack;

  @BeforeAll
  static void start(StackContext context) {
    stack = context;
  }

  /** Runs before the extension closes the writer. */
  @AfterAll
  static void restartDatabase() {
    stack.stack().postgres().start(); // a no-op unless the test failed while it was down
  }

  @Test
  void shouldAnswer503WhileDatabaseIsDownAndRecoverWithoutHalfWrittenJobs() throws Exception {
    publishAcrossAnOutage(() -> stack.stack().postgres().stop());
  }

  /** Scenario F7: an immediate shutdown (SIGQUIT) cuts the sessions without a goodbye. */
  @Test
  void shouldRecoverWithoutHalfWrittenJobsWhenTheDatabaseStopsImmediately() throws Exception {
    publishAcrossAnOutage(() -> stack.stack().postgres().stopImmediately());
  }

  private void publishAcrossAnOutage(Runnable stopDatabase) throws Exception {
    assertThat(publish(uniqueArticle()).statusCode()).isEqualTo(201);

    // Clients keep publishing new intents across the outage; every answer is recorded.
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    for (int i = 0; i < CLIENTS; i++) {
      clients.submit(
          () -> {
            while (running.get()) {
              String article = uniqueArticle();
              answers.put(article, publish(article).statusCode());
            }
            return null;
          });
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> answers.containsValue(201));

    stopDatabase.run();
    try {
      HttpResponse<String> during = publish(uniqueArticle());
      assertThat(during.statusCode()).isEqualTo(503);
      assertThat(during.headers().firstValue("Retry-After")).isPresent();
      assertThat(json(during.body()).get("error").asText()).isEqualTo("database_unavailable");
      assertThat(writer.ops("/health").statusCode()).isEqualTo(503);
      await().atMost(Duration.ofSeconds(30)).until(() -> answers.containsValue(503));
    } finally {
      stack.stack().postgres().start();
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> publish(uniqueArticle()).statusCode() == 201);
    assertThat(writer.ops("/health").statusCode()).isEqualTo(200);
    running.set(false);
    clients.shutdown();
    assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

    // Never a job without its event, whatever the moment the connection died.
    assertThat(
            writer.count(
                "SELECT count(*) FROM writer.publication_job j WHERE NOT EXISTS"
                    + " (SELECT 1 FROM writer.outbox o WHERE o.payload->>'jobId' = j.id::text)"))
        .isZero();
    // Every 201 is durable; every 503 was safe to retry: the retry is answered 201, or 200 when
    // the commit had gone through before the connection broke.
    List<String> created =
        answers.entrySet().stream()
            .filter(e -> e.getValue() == 201)
            .map(Map.Entry::getKey)
            .toList();
    for (String article : created) {
      assertThat(jobsOf(article)).as(article).isEqualTo(1);
    }
    List<String> refused =
        answers.entrySet().stream()
            .filter(e -> e.getValue() == 503)
            .map(Map.Entry::getKey)
            .toList();
    assertThat(refused).isNotEmpty();
    for (String article : refused) {
      assertThat(publish(article).statusCode()).as(article).isIn(200, 201);
      assertThat(jobsOf(article)).as(article).isEqualTo(1);
    }
    assertThat(answers.values()).allMatch(status -> status == 201 || status == 503);
  }

  private static HttpResponse<String> publish(String article) {
    return writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, CONTENT));
  }

  private static long jobsOf(String article) {
    return writer.count(
        "SELECT count(*) FROM writer.publication_job WHERE article_id = ?", article);
  }
}
