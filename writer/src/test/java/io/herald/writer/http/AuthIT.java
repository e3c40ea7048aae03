package io.herald.writer.http;

import static io.herald.writer.RunningWriter.JSON;
import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TENANT_B;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.RunningWriter.TOKEN_B;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tenancy: the bearer token names the tenant; a tenant never sees another tenant's jobs. */
@HeraldIntegrationTest
class AuthIT {

  private static final String CONTENT = "{\"title\":\"t\"}";
  @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();

  @Test
  void shouldAnswer401AndWriteNothingWhenTokenIsMissing() {
    String article = uniqueArticle();
    HttpResponse<String> response =
        writer.send(
            PublicationApi.PUBLICATIONS,
            null,
            JSON,
            body(article, CONTENT).getBytes(StandardCharsets.UTF_8),
            Map.of());

    assertUnauthorized(response);
    assertThat(jobsOf(article)).isZero();
  }

  @Test
  void shouldAnswer401AndWriteNothingWhenTokenIsWrong() {
    String article = uniqueArticle();
    HttpResponse<String> response =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A + "x", body(article, CONTENT));

    assertUnauthorized(response);
    assertThat(jobsOf(article)).isZero();
  }

  @Test
  void shouldAnswer401WhenTheSchemeIsNotBearer() {
    String article = uniqueArticle();
    HttpResponse<String> response =
        writer.exchange(
            HttpRequest.newBuilder(writer.uri(PublicationApi.PUBLICATIONS))
                .header("Content-Type", JSON)
                .header("Authorization", "Basic " + TOKEN_A)
                .POST(HttpRequest.BodyPublishers.ofString(body(article, CONTENT)))
                .build());

    assertUnauthorized(response);
    assertThat(jobsOf(article)).isZero();
  }

  @Test
  void shouldAnswer401BeforeLookingUpAJob() {
    HttpResponse<String> response =
        writer.get(PublicationApi.PUBLICATIONS + "/" + UUID.randomUUID(), null);

    assertUnauthorized(response);
  }

  @Test
  void shouldAnswer404WhenTenantReadsAnotherTenantsJob() {
    HttpResponse<String> created =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_B, body(uniqueArticle(), CONTENT));
    String jobOfB = json(created.body()).get("jobId").asText();

    HttpResponse<String> readByA = writer.get(PublicationApi.PUBLICATIONS + "/" + jobOfB, TOKEN_A);
    HttpResponse<String> unknownToA =
        writer.get(PublicationApi.PUBLICATIONS + "/" + UUID.randomUUID(), TOKEN_A);

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(readByA.statusCode()).isEqualTo(404);
    assertThat(json(readByA.body()).get("error").asText()).isEqualTo("not_found");
    // Indistinguishable from a job that does not exist, apart from the id echoed back.
    assertThat(unknownToA.statusCode()).isEqualTo(404);
    assertThat(json(unknownToA.body()).get("error")).isEqualTo(json(readByA.body()).get("error"));
  }

  @Test
  void shouldReturnOwnJobWithStatusAndContent() {
    String article = uniqueArticle();
    HttpResponse<String> created =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, CONTENT));
    String jobId = json(created.body()).get("jobId").asText();

    HttpResponse<String> read = writer.get(PublicationApi.PUBLICATIONS + "/" + jobId, TOKEN_A);

    assertThat(read.statusCode()).isEqualTo(200);
    JsonNode job = json(read.body());
    assertThat(job.get("jobId").asText()).isEqualTo(jobId);
    assertThat(job.get("tenant").asText()).isEqualTo(TENANT_A);
    assertThat(job.get("articleId").asText()).isEqualTo(article);
    assertThat(job.get("status").asText()).isEqualTo("REQUESTED");
    assertThat(job.get("content")).isEqualTo(json(CONTENT));
  }

  @Test
  void shouldAnswer404ForAMalformedJobId() {
    HttpResponse<String> response = writer.get(PublicationApi.PUBLICATIONS + "/1-1-1-1-1", TOKEN_A);

    assertThat(response.statusCode()).isEqualTo(404);
  }

  @Test
  void shouldKeepTenantsApartForTheSameArticleKey() {
    String article = uniqueArticle();
    HttpResponse<String> ofA =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, CONTENT));
    HttpResponse<String> ofB =
        writer.post(PublicationApi.PUBLICATIONS, TOKEN_B, body(article, CONTENT));

    assertThat(ofA.statusCode()).isEqualTo(201);
    assertThat(ofB.statusCode()).isEqualTo(201);
    assertThat(json(ofA.body()).get("tenant").asText()).isEqualTo(TENANT_A);
    assertThat(json(ofB.body()).get("tenant").asText()).isEqualTo(TENANT_B);
    assertThat(jobsOf(article)).isEqualTo(2);
  }

  private static void assertUnauthorized(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(json(response.body()).get("error").asText()).isEqualTo("unauthorized");
  }

  private static long jobsOf(String article) {
    return writer.count(
        "SELECT count(*) FROM writer.publication_job WHERE article_id = ?", article);
  }
}
