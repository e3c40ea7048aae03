package io.herald.writer.http;

import static io.herald.writer.RunningWriter.JSON;
import static io.herald.writer.RunningWriter.TENANT_A;
import static io.herald.writer.RunningWriter.TOKEN_A;
import static io.herald.writer.http.Publications.body;
import static io.herald.writer.http.Publications.json;
import static io.herald.writer.http.Publications.quote;
import static io.herald.writer.http.Publications.uniqueArticle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.devstack.HeraldIntegrationTest;
import io.herald.writer.RunningWriter;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and broken requests: each is answered with the right 4xx and a JSON error, and writes
 * nothing.
 */
@HeraldIntegrationTest
class HostileInputIT {

  private static final int MAX_BODY_BYTES = 64 * 1024;
  private static final int MAX_BATCH_ITEMS = 5;
  private static final String CONTENT = "{\"title\":\"t\"}";

  @RegisterExtension
  static final RunningWriter writer =
      RunningWriter.perClass(
          Map.of(
              "writer.http.request-max-bytes", Integer.toString(MAX_BODY_BYTES),
              "writer.batch.max-items", Integer.toString(MAX_BATCH_ITEMS)));

  /** A request that must be refused: where it goes, what it carries, and the expected answer. */
  record Hostile(
      String name, String path, String contentType, byte[] body, int status, String error) {
    @Override
    public String toString() {
      return name;
    }

    static Hostile publish(String name, String json, int status, String error) {
      return new Hostile(
          name,
          PublicationApi.PUBLICATIONS,
          JSON,
          json.getBytes(StandardCharsets.UTF_8),
          status,
          error);
    }
  }

  static Stream<Hostile> hostileRequests() {
    String a = quote(uniqueArticle());
    return Stream.of(
        Hostile.publish("malformed JSON", "{\"articleId\": " + a + ",", 400, "malformed_json"),
        Hostile.publish("empty body", "", 400, "malformed_json"),
        Hostile.publish(
            "data after the JSON value",
            body(uniqueArticle(), CONTENT) + " {}",
            400,
            "malformed_json"),
        Hostile.publish("a JSON array instead of an object", "[1,2]", 400, "invalid_request"),
        Hostile.publish(
            "missing revisionId",
            "{\"articleId\":" + a + ",\"destination\":\"d\",\"content\":{}}",
            400,
            "invalid_request"),
        Hostile.publish(
            "missing content",
            "{\"articleId\":" + a + ",\"revisionId\":\"r\",\"destination\":\"d\"}",
            400,
            "invalid_request"),
        Hostile.publish(
            "articleId as a number",
            "{\"articleId\":42,\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
            400,
            "invalid_request"),
        Hostile.publish(
            "revisionId as null",
            "{\"articleId\":" + a + ",\"revisionId\":null,\"destination\":\"d\",\"content\":{}}",
            400,
            "invalid_request"),
        Hostile.publish(
            "content as a string",
            "{\"articleId\":"
                + a
                + ",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":\"x\"}",
            400,
            "invalid_request"),
        Hostile.publish(
            "empty destination", body(uniqueArticle(), "r", "", CONTENT), 400, "invalid_request"),
        Hostile.publish("blank articleId", body("   ", "r", "d", CONTENT), 400, "invalid_request"),
        Hostile.publish(
            "articleId over the length limit",
            body("a".repeat(201), "r", "d", CONTENT),
            400,
            "invalid_request"),
        Hostile.publish(
            "control character in articleId",
            body(uniqueArticle() + "\u0007", "r", "d", CONTENT),
            400,
            "invalid_request"),
        Hostile.publish(
            "newline in destination",
            body(uniqueArticle(), "r", "dest\nx", CONTENT),
            400,
            "invalid_request"),
        Hostile.publish(
            "slash in destination",
            body(uniqueArticle(), "r", "dest/x", CONTENT),
            400,
            "invalid_request"),
        Hostile.publish(
            "NUL character in content",
            body(uniqueArticle(), "{\"t\":\"a\\u0000b\"}"),
            400,
            "invalid_request"),
        Hostile.publish(
            "unpaired surrogate in content",
            body(uniqueArticle(), "{\"t\":\"a\\ud800b\"}"),
            400,
            "invalid_request"),
        Hostile.publish(
            "number beyond what PostgreSQL stores",
            body(uniqueArticle(), "{\"n\":1e1000000}"),
            400,
            "invalid_request"),
        Hostile.publish(
            "tenant in the body",
            "{\"tenant\":\"tenant-b\",\"articleId\":"
                + a
                + ",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
            400,
            "invalid_request"),
        Hostile.publish(
            "duplicate JSON keys",
            "{\"articleId\":"
                + a
                + ",\"articleId\":\"other\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
            400,
            "malformed_json"),
        Hostile.publish(
            "duplicate keys inside content",
            body(uniqueArticle(), "{\"t\":1,\"t\":2}"),
            400,
            "malformed_json"),
        Hostile.publish(
            "JSON nested 10,000 deep",
            body(uniqueArticle(), "{\"deep\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}"),
            400,
            "malformed_json"),
        new Hostile(
            "invalid UTF-8",
            PublicationApi.PUBLICATIONS,
            JSON,
            invalidUtf8(),
            400,
            "malformed_json"),
        new Hostile(
            "body over the size limit",
            PublicationApi.PUBLICATIONS,
            JSON,
            body(uniqueArticle(), "{\"t\":\"" + "x".repeat(MAX_BODY_BYTES) + "\"}")
                .getBytes(StandardCharsets.UTF_8),
            413,
            "payload_too_large"),
        new Hostile(
            "text/plain content type",
            PublicationApi.PUBLICATIONS,
            "text/plain",
            body(uniqueArticle(), CONTENT).getBytes(StandardCharsets.UTF_8),
            415,
            "unsupported_media_type"),
        new Hostile(
            "JSON in ISO-8859-1",
            PublicationApi.PUBLICATIONS,
            "application/json; charset=ISO-8859-1",
            body(uniqueArticle(), CONTENT).getBytes(StandardCharsets.ISO_8859_1),
            415,
            "unsupported_media_type"),
        new Hostile(
            "no content type",
            PublicationApi.PUBLICATIONS,
            null,
            body(uniqueArticle(), CONTENT).getBytes(StandardCharsets.UTF_8),
            415,
            "unsupported_media_type"),
        new Hostile(
            "batch over its limit",
            PublicationApi.BATCH,
            JSON,
            batchOf(MAX_BATCH_ITEMS + 1).getBytes(StandardCharsets.UTF_8),
            413,
            "batch_too_large"),
        new Hostile(
            "empty batch",
            PublicationApi.BATCH,
            JSON,
            "[]".getBytes(StandardCharsets.UTF_8),
            400,
            "invalid_request"),
        new Hostile(
            "batch that is not an array",
            PublicationApi.BATCH,
            JSON,
            body(uniqueArticle(), CONTENT).getBytes(StandardCharsets.UTF_8),
            400,
            "invalid_request"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileRequests")
  void shouldRefuseHostileRequestWithoutWritingAnything(Hostile hostile) {
    long jobsBefore = writer.count("SELECT count(*) FROM writer.publication_job");
    long eventsBefore = writer.count("SELECT count(*) FROM writer.outbox");

    HttpResponse<String> response =
        writer.send(hostile.path(), TOKEN_A, hostile.contentType(), hostile.body(), Map.of());

    assertThat(response.statusCode()).as(response.body()).isEqualTo(hostile.status());
    assertThat(response.headers().firstValue("Content-Type")).hasValue(JSON);
    JsonNode error = json(response.body());
    assertThat(error.get("error").asText()).isEqualTo(hostile.error());
    assertThat(error.get("message").asText()).isNotBlank().doesNotContain("Exception");
    assertThat(writer.count("SELECT count(*) FROM writer.publication_job")).isEqualTo(jobsBefore);
    assertThat(writer.count("SELECT count(*) FROM writer.outbox")).isEqualTo(eventsBefore);
  }

  @Test
  void shouldRefuseAChunkedBodyOverTheLimitWithoutWritingAnything() {
    long jobsBefore = writer.count("SELECT count(*) FROM writer.publication_job");
    byte[] body =
        body(uniqueArticle(), "{\"t\":\"" + "x".repeat(MAX_BODY_BYTES) + "\"}")
            .getBytes(StandardCharsets.UTF_8);

    // No Content-Length: the limit is enforced while reading.
    HttpResponse<String> response =
        writer.exchange(
            HttpRequest.newBuilder(writer.uri(PublicationApi.PUBLICATIONS))
                .header("Content-Type", JSON)
                .header("Authorization", "Bearer " + TOKEN_A)
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build());

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(json(response.body()).get("error").asText()).isEqualTo("payload_too_large");
    assertThat(writer.count("SELECT count(*) FROM writer.publication_job")).isEqualTo(jobsBefore);
  }

  @Test
  void shouldStoreSqlMetacharactersInIdsVerbatim() {
    String article = "a'; DROP TABLE writer.publication_job; -- \" \\ % _ ;" + uniqueArticle();
    String revision = "r' OR '1'='1";
    String destination = "$1 :name ? ${x} `";

    HttpResponse<String> response =
        writer.post(
            PublicationApi.PUBLICATIONS, TOKEN_A, body(article, revision, destination, CONTENT));

    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    assertThat(
            writer.count(
                "SELECT count(*) FROM writer.publication_job"
                    + " WHERE tenant_id = ? AND article_id = ? AND revision_id = ? AND destination = ?",
                TENANT_A,
                article,
                revision,
                destination))
        .isEqualTo(1);
    assertThat(
            writer.count(
                "SELECT count(*) FROM writer.outbox WHERE payload->>'articleId' = ?", article))
        .isEqualTo(1);
  }

  @Test
  void shouldAnswerUnknownPathAndWrongMethodWithJsonErrors() {
    HttpResponse<String> unknown = writer.get("/v2/anything", TOKEN_A);
    HttpResponse<String> wrongMethod = writer.get(PublicationApi.PUBLICATIONS, TOKEN_A);

    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown.body()).get("error").asText()).isEqualTo("not_found");
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
    assertThat(json(wrongMethod.body()).get("error").asText()).isEqualTo("method_not_allowed");
  }

  private static byte[] invalidUtf8() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("{\"articleId\":\"" + uniqueArticle() + "-").getBytes(StandardCharsets.UTF_8));
    out.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF});
    out.writeBytes(
        "\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}"
            .getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static String batchOf(int items) {
    StringBuilder batch = new StringBuilder("[");
    for (int i = 0; i < items; i++) {
      batch.append(i == 0 ? "" : ",").append(body(uniqueArticle(), CONTENT));
    }
    return batch.append(']').toString();
  }

  @Test
  void shouldAnswerAnOversizedBodyWithA413AndKeepTheConnectionForTheNextRequest() throws Exception {
    long jobsBefore = writer.count("SELECT count(*) FROM writer.publication_job");
    byte[] oversized = new byte[2 * MAX_BODY_BYTES];
    Arrays.fill(oversized, (byte) 'x');
    URI uri = writer.uri(PublicationApi.PUBLICATIONS);

    try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(30_000);
      var out = socket.getOutputStream();
      var in = new BufferedInputStream(socket.getInputStream());
      // The whole oversized body is on the wire before the answer is read, as a client that
      // streams its body does; then a second request on the same connection.
      out.write(requestHead("POST", uri, oversized.length));
      out.write(oversized);
      out.write(requestHead("GET", writer.uri(PublicationApi.PUBLICATIONS + "/x"), -1));
      out.flush();

      RawResponse refused = RawResponse.read(in);
      RawResponse next = RawResponse.read(in);

      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.header("connection")).isNull();
      assertThat(json(refused.body()).get("error").asText()).isEqualTo("payload_too_large");
      assertThat(next.status()).isBetween(400, 499);
    }
    assertThat(writer.count("SELECT count(*) FROM writer.publication_job")).isEqualTo(jobsBefore);
  }

  @Test
  void shouldCloseTheConnectionAfterRefusingABodyFarOverTheLimitUnread() throws Exception {
    URI uri = writer.uri(PublicationApi.PUBLICATIONS);

    try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(30_000);
      var out = socket.getOutputStream();
      // Declares 5 times the limit and sends none of it: the answer must not wait for it.
      out.write(requestHead("POST", uri, 5L * MAX_BODY_BYTES));
      out.flush();

      RawResponse refused = RawResponse.read(new BufferedInputStream(socket.getInputStream()));

      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.header("connection")).isEqualToIgnoringCase("close");
    }
  }

  private static byte[] requestHead(String method, URI uri, long contentLength) {
    return (method
            + " "
            + uri.getRawPath()
            + " HTTP/1.1\r\nHost: "
            + uri.getHost()
            + ":"
            + uri.getPort()
            + "\r\nAuthorization: Bearer "
            + TOKEN_A
            + "\r\n"
            + (contentLength >= 0
                ? "Content-Type: " + JSON + "\r\nContent-Length: " + contentLength + "\r\n"
                : "")
            + "\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** One HTTP/1.1 response read off a socket: status, headers (lower-case names), body. */
  private record RawResponse(int status, Map<String, String> headers, String body) {

    String header(String name) {
      return headers.get(name);
    }

    static RawResponse read(InputStream in) throws IOException {
      String statusLine = line(in);
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      Map<String, String> headers = new HashMap<>();
      for (String line = line(in); !line.isEmpty(); line = line(in)) {
        int colon = line.indexOf(':');
        headers.put(
            line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).strip());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      return new RawResponse(
          status, headers, new String(in.readNBytes(length), StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new EOFException("connection closed mid-response");
        }
        if (b != '\r') {
          line.write(b);
        }
      }
      return line.toString(StandardCharsets.US_ASCII);
    }
  }
}
