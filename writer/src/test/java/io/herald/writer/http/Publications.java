package io.herald.writer.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.io.UncheckedIOException;
import java.util.UUID;

/** Request bodies and response parsing for API tests. */
final class Publications {

  private Publications() {}

  /** A unique article id, so tests in one class never share a key by accident. */
  static String uniqueArticle() {
    return "article-" + UUID.randomUUID();
  }

  static String body(String articleId, String revisionId, String destination, String content) {
    return """
        {"articleId":%s,"revisionId":%s,"destination":%s,"content":%s}"""
        .formatted(quote(articleId), quote(revisionId), quote(destination), content);
  }

  static String body(String articleId, String content) {
    return body(articleId, "r-1", "dest-a", content);
  }

  static String quote(String text) {
    try {
      return Json.mapper().writeValueAsString(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
