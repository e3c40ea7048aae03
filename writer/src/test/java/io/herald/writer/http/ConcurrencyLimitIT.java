package io.herald.writer.http;

import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bounded concurrency and read timeouts: a client that sends its body slowly holds one of the
 * request slots only until the read timeout; while every slot is taken, others get 503 at once.
 */
@HeraldIntegrationTest
class ConcurrencyLimitIT {

  @RegisterExtension
  static final RunningWriter writer =
      RunningWriter.perClass(
          Map.of(
              "writer.http.max-concurrent-requests", "1",
              "writer.http.max-queued-requests", "0",
              "writer.http.read-timeout", "2s"));

  @Test
  void shouldRefuseWith503WhileEverySlotIsTakenAndCutOffASlowClient() throws Exception {
    try (Socket slow = new Socket("127.0.0.1", writer.process().apiPort())) {
      // Headers and the first bytes of a 1,000-byte body, then silence: the request holds the
      // only slot while its body is read.
      OutputStream out = slow.getOutputStream();
      out.write(
          ("POST /v1/publications HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                  + TOKEN_A
                  + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"articleId\":")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();

      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> publish(uniqueArticle()).statusCode() == 503);
      HttpResponse<String> refused = publish(uniqueArticle());
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();
      assertThat(json(refused.body()).get("error").asText()).isEqualTo("overloaded");

      // The read timeout ends the slow request (answered, then closed) and frees the slot.
      slow.setSoTimeout(10_000);
      InputStream in = slow.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 408");
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> publish(uniqueArticle()).statusCode() == 201);
  }

  private static HttpResponse<String> publish(String article) {
    return writer.post(PublicationApi.PUBLICATIONS, TOKEN_A, body(article, "{\"t\":1}"));
  }
}
