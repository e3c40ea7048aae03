package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** /health and /metrics on the ops port: request outcomes, latency histograms, pool usage. */
@HeraldIntegrationTest
class ObservabilityIT {

  @RegisterExtension static final RunningWriter writer = RunningWriter.perClass();

  @Test
  void shouldCountRequestsByRouteAndOutcomeWithLatencyHistograms() {
    String article = uniqueArticle();
    writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "{\"v\":1}"));
    writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "{\"v\":1}"));
    writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "{\"v\":2}"));
    writer.post(PublicationApi.PUBLICATIONS, "wrong", body(article, "{\"v\":1}"));
    writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, "{");

    HttpResponse<String> metrics = writer.ops("/metrics");

    assertThat(metrics.statusCode()).isEqualTo(200);
    for (String outcome :
        new String[] {"created", "replayed", "conflict", "unauthorized", "invalid"}) {
      assertThat(metrics.body())
          .containsPattern(
              "(?m)^herald_writer_requests_seconds_count\\{[^}]*outcome=\""
                  + outcome
                  + "\"[^}]*route=\"publish\"[^}]*} 1(\\.0)?$");
    }
    assertThat(metrics.body()).contains("herald_writer_requests_seconds_bucket{");
    assertThat(metrics.body()).contains("hikaricp_connections_active{");
    assertThat(metrics.body()).contains("herald_writer_http_active");
  }

  @Test
  void shouldReportHealthyDatabase() {
    HttpResponse<String> health = writer.ops("/health");

    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(json(health.body()).get("checks").get("database").get("status").asText())
        .isEqualTo("UP");
  }
}
