package io.herald.common.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Canonical JSON text and its SHA-256, so that equal content hashes equal whatever the key order or
 * whitespace it arrived with (PostgreSQL {@code jsonb} reorders keys, so bytes never compare).
 *
 * <p>Rules: object keys sorted by UTF-16 code units (as RFC 8785 does), no insignificant
 * whitespace, strings escaped by Jackson, numbers in their shortest plain decimal form ({@code 1.0}
 * and {@code 1} and {@code 1e0} are the same number and canonicalize to {@code 1}).
 *
 * <p>Thread-safe and stateless. {@code null} arguments are rejected with NullPointerException.
 */
public final class CanonicalJson {

  private static final HexFormat HEX = HexFormat.of();
  private static final int MAX_PLAIN_SCALE = 100;

  private CanonicalJson() {}

  /** The canonical text of {@code node}. */
  public static String canonicalize(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out);
    return out.toString();
  }

  /** Lowercase hex SHA-256 of the UTF-8 canonical text of {@code node} (64 characters). */
  public static String sha256Hex(JsonNode node) {
    return sha256Hex(canonicalize(node).getBytes(StandardCharsets.UTF_8));
  }

  /** Lowercase hex SHA-256 of {@code bytes}. */
  public static String sha256Hex(byte[] bytes) {
    return HEX.formatHex(sha256().digest(bytes));
  }

  /** A fresh SHA-256 digest (always present on a Java platform). */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  private static void write(JsonNode node, StringBuilder out) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
        fields.sort(Map.Entry.comparingByKey());
        out.append('{');
        for (int i = 0; i < fields.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          writeString(fields.get(i).getKey(), out);
          out.append(':');
          write(fields.get(i).getValue(), out);
        }
        out.append('}');
      }
      case ARRAY -> {
        out.append('[');
        Iterator<JsonNode> elements = node.elements();
        boolean first = true;
        while (elements.hasNext()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          write(elements.next(), out);
        }
        out.append(']');
      }
      case STRING -> writeString(node.textValue(), out);
      case NUMBER -> out.append(canonicalNumber(node));
      case BOOLEAN -> out.append(node.booleanValue());
      case NULL -> out.append("null");
      default ->
          throw new IllegalArgumentException(
              "cannot canonicalize JSON node of type " + node.getNodeType());
    }
  }

  private static String canonicalNumber(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.bigIntegerValue().toString();
    }
    BigDecimal value = node.decimalValue().stripTrailingZeros();
    if (value.signum() == 0) {
      return "0";
    }
    if (Math.abs(value.scale()) > MAX_PLAIN_SCALE) {
      // 1e999999999 is 11 characters of input; its plain form would be a gigabyte.
      return value.toString();
    }
    return value.scale() <= 0 ? value.toBigInteger().toString() : value.toPlainString();
  }

  private static void writeString(String value, StringBuilder out) {
    try {
      out.append(Json.mapper().writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a Java string always serializes", e);
    }
  }
}
