package io.herald.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import io.herald.common.trace.TraceContext;
import io.herald.runtime.http.HttpProblem;
import io.herald.writer.job.PublicationIntent;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IntentParserTest {

  private static final TraceContext TRACE = TraceContext.newRoot(new SplittableRandom(1));
  private final IntentParser parser = new IntentParser(Json.mapper());

  @Test
  void shouldBuildTheIntentWithKeyHashAndTrace() throws Exception {
    PublicationIntent intent =
        parse(
            "{\"articleId\":\"a-84\",\"revisionId\":\"r-3\",\"destination\":\"dest-a\",\"content\":{\"b\":1,\"a\":[true,null]}}");

    assertThat(intent.key().tenant()).isEqualTo("t1");
    assertThat(intent.key().articleId()).isEqualTo("a-84");
    assertThat(intent.key().revisionId()).isEqualTo("r-3");
    assertThat(intent.key().destination()).isEqualTo("dest-a");
    assertThat(intent.trace()).isEqualTo(TRACE);
    assertThat(intent.payloadHash()).hasSize(64);
  }

  @Test
  void shouldHashContentIndependentlyOfKeyOrderAndWhitespace() throws Exception {
    PublicationIntent one =
        parse(
            "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{\"x\":1,\"y\":{\"p\":2,\"q\":3}}}");
    PublicationIntent two =
        parse(
            "{ \"content\" : { \"y\" : { \"q\" : 3 , \"p\" : 2 }, \"x\" : 1 },\n \"destination\":\"d\", \"revisionId\":\"r\", \"articleId\":\"a\" }");
    PublicationIntent other =
        parse(
            "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{\"x\":1,\"y\":{\"p\":2,\"q\":4}}}");

    assertThat(two.payloadHash()).isEqualTo(one.payloadHash());
    assertThat(other.payloadHash()).isNotEqualTo(one.payloadHash());
  }

  @Test
  void shouldKeepSqlMetacharactersAndUnicodeVerbatim() throws Exception {
    PublicationIntent intent =
        parse(
            "{\"articleId\":\"a'; DROP TABLE x; --\",\"revisionId\":\"r/1 ü 😀\",\"destination\":\"d%_\",\"content\":{}}");

    assertThat(intent.key().articleId()).isEqualTo("a'; DROP TABLE x; --");
    assertThat(intent.key().revisionId()).isEqualTo("r/1 ü 😀");
  }

  @Test
  void shouldNameTheFieldThatIsWrong() {
    assertInvalid(
        "{\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}", "articleId is required");
    assertInvalid(
        "{\"articleId\":1,\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
        "articleId must be a string");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"\",\"destination\":\"d\",\"content\":{}}",
        "revisionId must not be empty");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d/e\",\"content\":{}}",
        "destination must not contain '/'");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":[]}",
        "content must be a JSON object");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\"}", "content is required");
    assertInvalid(
        "{\"articleId\":\""
            + "a".repeat(201)
            + "\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
        "articleId is 201 characters long");
    assertInvalid(
        "{\"articleId\":\"a\\tb\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
        "control characters");
    assertInvalid(
        "{\"tenant\":\"t2\",\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{}}",
        "bearer token");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{\"k\":\"\\u0000\"}}",
        "U+0000");
    assertInvalid(
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"d\",\"content\":{\"k\":1e999999}}",
        "number");
  }

  @Test
  void shouldRefuseMalformedBodies() {
    assertMalformed("");
    assertMalformed("{");
    assertMalformed("{} {}");
    assertMalformed("{\"a\":1,\"a\":2}");
    assertMalformed("[".repeat(10_000) + "]".repeat(10_000));
    assertThatThrownBy(() -> parser.parseBody(new byte[] {'"', (byte) 0xC3, (byte) 0x28, '"'}))
        .isInstanceOfSatisfying(
            HttpProblem.class, e -> assertThat(ApiError.of(e)).isEqualTo(ApiError.MALFORMED_JSON));
  }

  @Test
  void shouldBoundBatches() throws Exception {
    assertThat(parser.batchItems(Json.mapper().readTree("[{},{}]"), 2)).hasSize(2);
    assertThatThrownBy(() -> parser.batchItems(Json.mapper().readTree("[{},{},{}]"), 2))
        .isInstanceOfSatisfying(
            HttpProblem.class, e -> assertThat(ApiError.of(e)).isEqualTo(ApiError.BATCH_TOO_LARGE));
    assertThatThrownBy(() -> parser.batchItems(Json.mapper().readTree("[]"), 2))
        .isInstanceOfSatisfying(
            HttpProblem.class, e -> assertThat(ApiError.of(e)).isEqualTo(ApiError.INVALID_REQUEST));
  }

  @Test
  void shouldAcceptOnlyUtf8Json() {
    assertThat(PublicationApi.isJson("application/json")).isTrue();
    assertThat(PublicationApi.isJson("Application/JSON; charset=UTF-8")).isTrue();
    assertThat(PublicationApi.isJson("application/json;charset=\"utf-8\"")).isTrue();
    assertThat(PublicationApi.isJson("application/json; charset=iso-8859-1")).isFalse();
    assertThat(PublicationApi.isJson("text/plain")).isFalse();
    assertThat(PublicationApi.isJson("application/jsonx")).isFalse();
    assertThat(PublicationApi.isJson(null)).isFalse();
  }

  @Test
  void shouldRefuseWithUnknownDestinationADestinationOutsideTheAllowedList() throws Exception {
    IntentParser allowing = new IntentParser(Json.mapper(), Set.of("dest-b", "dest-a"));
    JsonNode typo =
        allowing.parseBody(
            "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"dest-A\",\"content\":{}}"
                .getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> allowing.intent(typo, "t1", TRACE))
        .isInstanceOfSatisfying(
            HttpProblem.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.code()).isEqualTo("unknown_destination");
              assertThat(e.getMessage())
                  .contains("'dest-A'")
                  .contains("allowed are dest-a, dest-b")
                  .contains("writer.destinations.allowed");
            });
  }

  @Test
  void shouldAcceptAListedDestinationAndAnyWhenNoListIsConfigured() throws Exception {
    IntentParser allowing = new IntentParser(Json.mapper(), Set.of("dest-a"));
    byte[] body =
        "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"dest-a\",\"content\":{}}"
            .getBytes(StandardCharsets.UTF_8);

    assertThat(allowing.intent(allowing.parseBody(body), "t1", TRACE).key().destination())
        .isEqualTo("dest-a");
    assertThat(
            parse(
                    "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"dest-A\",\"content\":{}}")
                .key()
                .destination())
        .isEqualTo("dest-A");
  }

  @Test
  void shouldAnswerBadRequestBeforeUnknownDestinationForAMalformedIntent() throws Exception {
    IntentParser allowing = new IntentParser(Json.mapper(), Set.of("dest-a"));
    JsonNode noContent =
        allowing.parseBody(
            "{\"articleId\":\"a\",\"revisionId\":\"r\",\"destination\":\"dest-A\"}"
                .getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> allowing.intent(noContent, "t1", TRACE))
        .isInstanceOfSatisfying(
            HttpProblem.class, e -> assertThat(ApiError.of(e)).isEqualTo(ApiError.INVALID_REQUEST));
  }

  private PublicationIntent parse(String json) throws HttpProblem {
    JsonNode root = parser.parseBody(json.getBytes(StandardCharsets.UTF_8));
    return parser.intent(root, "t1", TRACE);
  }

  private void assertInvalid(String json, String message) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOfSatisfying(
            HttpProblem.class,
            e -> {
              assertThat(ApiError.of(e)).isEqualTo(ApiError.INVALID_REQUEST);
              assertThat(e.getMessage()).contains(message);
            });
  }

  private void assertMalformed(String json) {
    assertThatThrownBy(() -> parser.parseBody(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            HttpProblem.class, e -> assertThat(ApiError.of(e)).isEqualTo(ApiError.MALFORMED_JSON));
  }
}
