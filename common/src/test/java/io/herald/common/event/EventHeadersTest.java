package io.herald.common.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventHeadersTest {

  @Test
  void shouldDecodeAPlainUtf8Value() {
    assertEquals("tenant-é", EventHeaders.decode("tenant-é".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldStripOnePairOfJsonQuotes() {
    assertEquals("t1", EventHeaders.decode("\"t1\"".getBytes(StandardCharsets.UTF_8)));
    assertEquals("\"", EventHeaders.decode("\"".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldReturnNullForANullValue() {
    assertNull(EventHeaders.decode(null));
  }
}
