package io.herald.common.event;

import io.herald.common.json.CanonicalJson;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The business key of one publication intent: the same article revision sent to the same
 * destination for the same tenant is one job, whatever the number of requests.
 *
 * <p>Immutable and thread-safe. Every field is required, non-blank and at most {@value
 * #MAX_FIELD_LENGTH} characters; {@code /} is rejected in the fields that form {@link
 * #aggregateId()} so that the Kafka key is unambiguous.
 */
public record PublicationKey(
    String tenant, String articleId, String revisionId, String destination) {

  /** Longest accepted field, in characters. */
  public static final int MAX_FIELD_LENGTH = 200;

  public PublicationKey {
    check("tenant", tenant, true);
    check("articleId", articleId, true);
    check("revisionId", revisionId, false);
    check("destination", destination, true);
  }

  /**
   * The idempotency key sent to the destination on every attempt: lowercase hex SHA-256 over the
   * four fields, each preceded by its UTF-8 byte length as a 4-byte big-endian integer, so that
   * {@code ("ab","c")} and {@code ("a","bc")} never collide. Deterministic: it survives the loss of
   * every row that mentioned it.
   */
  public String idempotencyKey() {
    MessageDigest digest = CanonicalJson.sha256();
    for (String field : new String[] {tenant, articleId, revisionId, destination}) {
      byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
      digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
      digest.update(bytes);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * The Kafka record key {@code tenant/articleId/destination}: the ordering scope of guarantee 5
   * (revisions of one article for one destination stay on one partition, in order).
   */
  public String aggregateId() {
    return tenant + "/" + articleId + "/" + destination;
  }

  private static void check(String name, String value, boolean partOfAggregateId) {
    Objects.requireNonNull(value, name + " is required");
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    if (value.length() > MAX_FIELD_LENGTH) {
      throw new IllegalArgumentException(
          name + " is longer than " + MAX_FIELD_LENGTH + " characters: " + value.length());
    }
    if (partOfAggregateId && value.indexOf('/') >= 0) {
      throw new IllegalArgumentException(name + " must not contain '/': " + value);
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(name + " must not contain control characters");
      }
    }
  }
}
