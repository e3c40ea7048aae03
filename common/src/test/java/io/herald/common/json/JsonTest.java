package io.herald.common.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class JsonTest {

  record Item(String name, int count) {}

  @Test
  void shouldRejectDuplicateKeys() {
    JsonProcessingException e =
        assertThrows(
            JsonProcessingException.class,
            () -> Json.mapper().readTree("{\"content\":{\"a\":1,\"a\":2}}"));
    assertTrue(e.getMessage().contains("Duplicate field 'a'"), e.getMessage());
  }

  @Test
  void shouldRejectNestingDeeperThanTheLimit() {
    String deep = "[".repeat(Json.MAX_NESTING_DEPTH + 1) + "]".repeat(Json.MAX_NESTING_DEPTH + 1);

    JsonProcessingException e =
        assertThrows(JsonProcessingException.class, () -> Json.mapper().readTree(deep));
    assertTrue(e.getMessage().contains("nesting depth"), e.getMessage());
  }

  @Test
  void shouldAcceptNestingUpToTheLimit() throws Exception {
    String deep = "[".repeat(Json.MAX_NESTING_DEPTH) + "]".repeat(Json.MAX_NESTING_DEPTH);

    assertTrue(Json.mapper().readTree(deep).isArray());
  }

  @Test
  void shouldNotCoerceANumberIntoAString() {
    assertThrows(
        JsonProcessingException.class,
        () -> Json.mapper().readValue("{\"name\":1,\"count\":1}", Item.class));
  }

  @Test
  void shouldNotCoerceAStringIntoANumber() {
    assertThrows(
        JsonProcessingException.class,
        () -> Json.mapper().readValue("{\"name\":\"x\",\"count\":\"1\"}", Item.class));
  }

  @Test
  void shouldNotCoerceAFloatIntoAnInteger() {
    assertThrows(
        JsonProcessingException.class,
        () -> Json.mapper().readValue("{\"name\":\"x\",\"count\":1.5}", Item.class));
  }

  @Test
  void shouldRejectTrailingContent() {
    assertThrows(JsonProcessingException.class, () -> Json.mapper().readTree("{} {}"));
  }

  @Test
  void shouldReadWellFormedValues() throws Exception {
    Item item = Json.mapper().readValue("{\"name\":\"x\",\"count\":2}", Item.class);
    JsonNode tree = Json.mapper().readTree("{\"a\":[1,2,{\"b\":null}]}");

    assertEquals(new Item("x", 2), item);
    assertEquals(3, tree.get("a").size());
  }
}
