package io.herald.writer.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.common.event.PublicationKey;
import io.herald.common.json.CanonicalJson;
import io.herald.common.trace.TraceContext;
import io.herald.runtime.http.HttpProblem;
import io.herald.writer.job.PublicationIntent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Turns request bodies into {@link PublicationIntent}s, or says precisely what is wrong with them.
 *
 * <p>Parsing is strict (the shared mapper rejects duplicate keys and limits nesting; trailing data
 * is rejected here) and always from bytes, so invalid UTF-8 is an error instead of being replaced.
 * Ids are stored verbatim: any printable text up to 200 characters, SQL metacharacters included
 * (every statement binds them as parameters); {@code /} is refused in articleId and destination,
 * which form the Kafka key {@code tenant/articleId/destination}. Control characters are refused in
 * ids, and content that PostgreSQL's {@code jsonb} cannot store ({@code \u0000}, unpaired
 * surrogates, numbers that overflow to infinity) is refused with a 400 instead of failing at
 * insert.
 *
 * <p>Immutable and thread-safe.
 */
final class IntentParser {

  static final String ARTICLE_ID = "articleId";
  static final String REVISION_ID = "revisionId";
  static final String DESTINATION = "destination";
  static final String CONTENT = "content";
  private static final Set<String> FIELDS = Set.of(ARTICLE_ID, REVISION_ID, DESTINATION, CONTENT);
  private static final int MAX_ECHOED_CHARS = 80;

  /** Digits after the decimal point that jsonb's numeric accepts. */
  private static final int MAX_NUMERIC_SCALE = 16383;

  /** {@link PublicationKey}'s limit, checked here first so the answer names the field. */
  private static final int MAX_ID_LENGTH = PublicationKey.MAX_FIELD_LENGTH;

  private final ObjectMapper mapper;

  /** {@code writer.destinations.allowed}, sorted for the message; empty: any destination. */
  private final SortedSet<String> allowedDestinations;

  /** A parser that accepts any destination. */
  IntentParser(ObjectMapper mapper) {
    this(mapper, Set.of());
  }

  /**
   * @param allowedDestinations the destinations a publication may name ({@code
   *     writer.destinations.allowed}); empty: any
   */
  IntentParser(ObjectMapper mapper, Set<String> allowedDestinations) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.allowedDestinations = new TreeSet<>(allowedDestinations);
  }

  /** One JSON value from the whole body, nothing before or after it. */
  JsonNode parseBody(byte[] body) throws HttpProblem {
    try (JsonParser parser = mapper.createParser(body)) {
      JsonNode root = mapper.readTree(parser);
      if (root == null || root.isMissingNode()) {
        throw ApiError.MALFORMED_JSON.problem("the request body is empty");
      }
      if (parser.nextToken() != null) {
        throw ApiError.MALFORMED_JSON.problem("the request body has data after its JSON value");
      }
      return root;
    } catch (StreamConstraintsException e) {
      throw ApiError.MALFORMED_JSON.problem(
          "the request body exceeds a JSON limit: " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw ApiError.MALFORMED_JSON.problem(
          "the request body is not valid JSON: " + echo(e.getOriginalMessage()));
    } catch (IOException e) {
      // Byte-level decoding failures (invalid UTF-8 and other encodings) surface here.
      throw ApiError.MALFORMED_JSON.problem(
          "the request body is not valid JSON: " + echo(e.getMessage()));
    }
  }

  /** A single publication: {@code {articleId, revisionId, destination, content:{...}}}. */
  PublicationIntent intent(JsonNode item, String tenant, TraceContext trace) throws HttpProblem {
    if (!item.isObject()) {
      throw invalid("a publication must be a JSON object, was " + kind(item));
    }
    for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw invalid(
            "unknown field '"
                + echo(name)
                + "'; allowed are articleId, revisionId, destination, content"
                + (name.equalsIgnoreCase("tenant")
                    ? " (the tenant comes from the bearer token)"
                    : ""));
      }
    }
    // articleId and destination form the Kafka key tenant/articleId/destination: no '/' in them.
    String articleId = id(item, ARTICLE_ID, false);
    String revisionId = id(item, REVISION_ID, true);
    String destination = id(item, DESTINATION, false);
    JsonNode content = item.get(CONTENT);
    if (content == null || content.isNull()) {
      throw invalid("content is required");
    }
    if (!content.isObject()) {
      throw invalid("content must be a JSON object, was " + kind(content));
    }
    checkStorable(content, CONTENT);
    PublicationKey key;
    try {
      key = new PublicationKey(tenant, articleId, revisionId, destination);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage()); // a rule of the key this parser does not check itself
    }
    // Well-formed but unprocessable, checked last so a malformed request still gets its 400: a
    // destination no consumer knows would otherwise be accepted and wait for ever (issue 17).
    if (!allowedDestinations.isEmpty() && !allowedDestinations.contains(destination)) {
      throw ApiError.UNKNOWN_DESTINATION.problem(
          "destination '"
              + echo(destination)
              + "' is not one this writer accepts; allowed are "
              + String.join(", ", allowedDestinations)
              + " (writer.destinations.allowed)");
    }
    return new PublicationIntent(
        key, (ObjectNode) content, CanonicalJson.sha256Hex(content), trace);
  }

  /** A batch: a non-empty JSON array of at most {@code maxItems} publications. */
  List<JsonNode> batchItems(JsonNode root, int maxItems) throws HttpProblem {
    if (!root.isArray()) {
      throw invalid("a batch must be a JSON array of publications, was " + kind(root));
    }
    if (root.isEmpty()) {
      throw invalid("a batch must contain at least one publication");
    }
    if (root.size() > maxItems) {
      throw ApiError.BATCH_TOO_LARGE.problem(
          "a batch holds at most " + maxItems + " publications, this one has " + root.size());
    }
    List<JsonNode> items = new ArrayList<>(root.size());
    root.forEach(items::add);
    return items;
  }

  private static String id(JsonNode item, String field, boolean slashAllowed) throws HttpProblem {
    JsonNode value = item.get(field);
    if (value == null || value.isNull()) {
      throw invalid(field + " is required");
    }
    if (!value.isTextual()) {
      throw invalid(field + " must be a string, was " + kind(value));
    }
    String text = value.textValue();
    if (text.isBlank()) {
      throw invalid(field + " must not be empty");
    }
    if (text.length() > MAX_ID_LENGTH) {
      throw invalid(
          field + " is " + text.length() + " characters long; the limit is " + MAX_ID_LENGTH);
    }
    if (!slashAllowed && text.indexOf('/') >= 0) {
      throw invalid(
          field
              + " must not contain '/' (it is part of the Kafka key tenant/articleId/destination)");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c)) {
        throw invalid(
            field + " must not contain control characters (found U+%04X)".formatted((int) c));
      }
    }
    if (!isWellFormed(text)) {
      throw invalid(field + " contains an unpaired UTF-16 surrogate");
    }
    return text;
  }

  /** Refuses what jsonb cannot hold, so the insert cannot fail on the client's data. */
  private static void checkStorable(JsonNode node, String path) throws HttpProblem {
    if (node.isTextual()) {
      checkStorableText(node.textValue(), path);
    } else if (node.isFloatingPointNumber()
        && (!Double.isFinite(node.doubleValue())
            || (node.isBigDecimal() && node.decimalValue().scale() > MAX_NUMERIC_SCALE))) {
      throw invalid(path + " holds a number outside the range PostgreSQL can store");
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        checkStorableText(field.getKey(), path + " (a key)");
        checkStorable(field.getValue(), path + "." + echo(field.getKey()));
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        checkStorable(node.get(i), path + "[" + i + "]");
      }
    }
  }

  private static void checkStorableText(String text, String path) throws HttpProblem {
    if (text.indexOf('\u0000') >= 0) {
      throw invalid(path + " contains U+0000, which PostgreSQL cannot store");
    }
    if (!isWellFormed(text)) {
      throw invalid(path + " contains an unpaired UTF-16 surrogate");
    }
  }

  private static boolean isWellFormed(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static String kind(JsonNode node) {
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }

  /** Client text echoed in a message: bounded, so an error never amplifies a large input. */
  private static String echo(String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= MAX_ECHOED_CHARS ? text : text.substring(0, MAX_ECHOED_CHARS) + "...";
  }

  private static HttpProblem invalid(String message) {
    return ApiError.INVALID_REQUEST.problem(message);
  }
}
