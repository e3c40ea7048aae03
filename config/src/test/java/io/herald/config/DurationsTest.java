package io.herald.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void shouldParseEachUnit() {
    assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
    assertEquals(Duration.ofSeconds(30), Durations.parse("30s"));
    assertEquals(Duration.ofMinutes(5), Durations.parse("5m"));
    assertEquals(Duration.ofHours(2), Durations.parse("2h"));
    assertEquals(Duration.ofDays(7), Durations.parse("7d"));
  }

  @Test
  void shouldRejectANumberWithoutUnitAndOtherSyntax() {
    for (String bad : new String[] {"30", "1.5s", "-1s", "PT30S", "s", "30 sec"}) {
      assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad), bad);
    }
  }

  @Test
  void shouldFormatInTheLargestExactUnit() {
    assertEquals("500ms", Durations.format(Duration.ofMillis(500)));
    assertEquals("90s", Durations.format(Duration.ofSeconds(90)));
    assertEquals("5m", Durations.format(Duration.ofMinutes(5)));
    assertEquals("1d", Durations.format(Duration.ofHours(24)));
    assertEquals("0s", Durations.format(Duration.ZERO));
  }
}
