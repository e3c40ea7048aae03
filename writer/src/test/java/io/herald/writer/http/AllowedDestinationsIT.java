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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code writer.destinations.allowed}: a destination outside the list is refused with 422 {@code
 * unknown_destination} and nothing is stored (no job, no outbox event), alone or in a batch.
 */
@HeraldIntegrationTest
class AllowedDestinationsIT {

  @RegisterExtension
  static final RunningWriter writer =
      RunningWriter.perClass(Map.of("writer.destinations.allowed", "dest-a,dest-b,dest-c"));

  @Test
  void shouldRefuseWithUnprocessableEntityADestinationOutsideTheAllowedList() {
    String article = uniqueArticle();

    HttpResponse<String> response =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "r-1", "dest-A", "{}"));

    assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
    JsonNode error = json(response.body());
    assertThat(error.get("error").asText()).isEqualTo("unknown_destination");
    assertThat(error.get("message").asText())
        .contains("'dest-A'")
        .contains("allowed are dest-a, dest-b, dest-c");
    assertThat(jobsOf(article)).isZero();
    assertThat(eventsOf(article)).isZero();
  }

  @Test
  void shouldAcceptAListedDestinationAndRefuseOnlyTheUnlistedItemOfABatch() {
    String listed = uniqueArticle();
    String unlisted = uniqueArticle();

    HttpResponse<String> response =
        writer.post(
            PublicationApi.BATCH,
            TOKEN_A,
            "["
                + body(listed, "r-1", "dest-b", "{}")
                + ","
                + body(unlisted, "r-1", "dest-x", "{}")
                + "]");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode results = json(response.body()).get("results");
    assertThat(results.get(0).get("status").asInt()).isEqualTo(201);
    assertThat(results.get(1).get("status").asInt()).isEqualTo(422);
    assertThat(results.get(1).get("error").asText()).isEqualTo("unknown_destination");
    assertThat(jobsOf(listed)).isEqualTo(1);
    assertThat(jobsOf(unlisted)).isZero();
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
