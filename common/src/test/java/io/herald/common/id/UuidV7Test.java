package io.herald.common.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00.123Z");

  @Test
  void shouldSetVersion7AndRfcVariant() {
    UUID id = new UuidV7(Clock.fixed(NOW, ZoneOffset.UTC), new SplittableRandom(1)).get();

    assertEquals(7, id.version());
    assertEquals(2, id.variant());
  }

  @Test
  void shouldEncodeTheClockMillisecond() {
    UUID id = new UuidV7(Clock.fixed(NOW, ZoneOffset.UTC), new SplittableRandom(1)).get();

    assertEquals(NOW, UuidV7.timestampOf(id));
  }

  @Test
  void shouldBeStrictlyIncreasingWithinOneMillisecondEvenPastTheCounterRange() {
    UuidV7 ids = new UuidV7(Clock.fixed(NOW, ZoneOffset.UTC), new SplittableRandom(7));
    List<UUID> generated = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) { // more than the 12-bit counter holds
      generated.add(ids.get());
    }

    for (int i = 1; i < generated.size(); i++) {
      assertTrue(
          compareUnsigned(generated.get(i - 1), generated.get(i)) < 0,
          "id " + i + " not greater than its predecessor");
      assertEquals(7, generated.get(i).version());
    }
  }

  @Test
  void shouldStayIncreasingWhenTheClockGoesBackwards() {
    MutableClock clock = new MutableClock(NOW);
    UuidV7 ids = new UuidV7(clock, new SplittableRandom(3));
    UUID before = ids.get();
    clock.now = NOW.minusSeconds(5);

    UUID after = ids.get();

    assertTrue(compareUnsigned(before, after) < 0);
  }

  @Test
  void shouldOrderIdsOfLaterMillisecondsAfterEarlierOnes() {
    MutableClock clock = new MutableClock(NOW);
    UuidV7 ids = new UuidV7(clock, new SplittableRandom(3));
    UUID first = ids.get();
    clock.now = NOW.plusMillis(1);

    UUID second = ids.get();

    assertTrue(compareUnsigned(first, second) < 0);
    assertEquals(NOW.plusMillis(1), UuidV7.timestampOf(second));
  }

  @Test
  void shouldRejectTimestampOfOtherVersions() {
    assertThrows(IllegalArgumentException.class, () -> UuidV7.timestampOf(UUID.randomUUID()));
  }

  /** UUIDv7 sort order is the unsigned order of its 128 bits (also the text order). */
  private static int compareUnsigned(UUID a, UUID b) {
    int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
    return high != 0
        ? high
        : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
  }

  private static final class MutableClock extends Clock {
    Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
