package io.herald.common.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class CanonicalJsonTest {

  private static JsonNode parse(String json) throws Exception {
    return Json.mapper().readTree(json);
  }

  @Test
  void shouldHashEquallyWhenOnlyKeyOrderAndWhitespaceDiffer() throws Exception {
    JsonNode a = parse("{\"title\":\"Hello\",\"body\":{\"x\":1,\"y\":[1,2]},\"tags\":[]}");
    JsonNode b =
        parse("{ \"tags\" : [ ],\n \"body\": {\"y\": [1, 2], \"x\": 1},\t\"title\":\"Hello\" }");

    assertEquals(CanonicalJson.sha256Hex(a), CanonicalJson.sha256Hex(b));
  }

  @Test
  void shouldHashDifferentlyWhenAValueDiffers() throws Exception {
    JsonNode a = parse("{\"title\":\"Hello\",\"body\":{\"x\":1}}");
    JsonNode b = parse("{\"title\":\"Hello\",\"body\":{\"x\":2}}");

    assertNotEquals(CanonicalJson.sha256Hex(a), CanonicalJson.sha256Hex(b));
  }

  @Test
  void shouldHashDifferentlyWhenArrayOrderDiffers() throws Exception {
    assertNotEquals(
        CanonicalJson.sha256Hex(parse("[1,2]")), CanonicalJson.sha256Hex(parse("[2,1]")));
  }

  @Test
  void shouldHashDifferentlyWhenTypeDiffers() throws Exception {
    assertNotEquals(
        CanonicalJson.sha256Hex(parse("{\"a\":1}")),
        CanonicalJson.sha256Hex(parse("{\"a\":\"1\"}")));
  }

  @Test
  void shouldWriteSortedKeysWithoutWhitespace() throws Exception {
    assertEquals(
        "{\"a\":[true,null,\"x\\\"y\"],\"b\":{\"c\":1,\"d\":2.5}}",
        CanonicalJson.canonicalize(
            parse("{ \"b\": {\"d\": 2.50, \"c\": 1}, \"a\": [true, null, \"x\\\"y\"] }")));
  }

  @Test
  void shouldWriteEqualNumbersEqually() throws Exception {
    assertEquals(
        CanonicalJson.canonicalize(parse("{\"n\":1.0,\"m\":1e2}")),
        CanonicalJson.canonicalize(parse("{\"n\":1,\"m\":100}")));
  }

  @Test
  void shouldProduceTheSha256OfTheCanonicalText() throws Exception {
    // sha256("{}") from any reference implementation
    assertEquals(
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
        CanonicalJson.sha256Hex(parse(" { } ")));
  }
}
