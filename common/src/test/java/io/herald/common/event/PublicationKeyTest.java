package io.herald.common.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PublicationKeyTest {

  @Test
  void shouldDeriveDifferentKeysWhenFieldBoundariesMove() {
    PublicationKey ab = new PublicationKey("ab", "c", "r1", "dest");
    PublicationKey a = new PublicationKey("a", "bc", "r1", "dest");

    assertNotEquals(ab.idempotencyKey(), a.idempotencyKey());
  }

  @Test
  void shouldDeriveTheSameKeyEveryTime() {
    PublicationKey key = new PublicationKey("t1", "a-84", "r-3", "dest-a");

    assertEquals(
        key.idempotencyKey(), new PublicationKey("t1", "a-84", "r-3", "dest-a").idempotencyKey());
    assertTrue(key.idempotencyKey().matches("[0-9a-f]{64}"));
  }

  @Test
  void shouldDeriveTheDocumentedLengthPrefixedHash() {
    // sha256 over (len32 "t")(t)(len32 "a")(a)(len32 "r")(r)(len32 "d")(d), computed independently:
    // printf '\0\0\0\1t\0\0\0\1a\0\0\0\1r\0\0\0\1d' | sha256sum
    assertEquals(
        "2d3cd2d0a274777107157d3990178e0c69d000d0b9301b6b7b5e66b6ea056dbf",
        new PublicationKey("t", "a", "r", "d").idempotencyKey());
  }

  @Test
  void shouldUseTenantArticleAndDestinationAsAggregateId() {
    assertEquals("t1/a-84/dest-a", new PublicationKey("t1", "a-84", "r-3", "dest-a").aggregateId());
  }

  @Test
  void shouldRejectSlashInAggregateFields() {
    assertThrows(IllegalArgumentException.class, () -> new PublicationKey("t/1", "a", "r", "d"));
    assertThrows(IllegalArgumentException.class, () -> new PublicationKey("t", "a/b", "r", "d"));
  }

  @Test
  void shouldRejectBlankAndMissingFields() {
    assertThrows(IllegalArgumentException.class, () -> new PublicationKey("t", " ", "r", "d"));
    assertThrows(NullPointerException.class, () -> new PublicationKey("t", "a", null, "d"));
  }
}
