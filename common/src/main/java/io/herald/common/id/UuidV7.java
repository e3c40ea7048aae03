package io.herald.common.id;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Generates time-ordered UUIDv7 identifiers (RFC 9562, section 5.7).
 *
 * <p>Layout: 48 bits of Unix epoch milliseconds, version 7, 12 bits {@code rand_a} used as a
 * counter, the RFC variant, 62 random bits. Within one millisecond the 12-bit counter (seeded
 * randomly in its lower half) is incremented, so ids from one generator are strictly increasing
 * (RFC 9562 method 1, "fixed bit-length dedicated counter"). When the counter overflows, or the
 * clock goes backwards, the generator borrows the next millisecond instead of repeating a value.
 *
 * <p>Thread-safe: {@link #get()} is synchronized, one generator can be shared by a process.
 *
 * <pre>{@code
 * UuidV7 ids = UuidV7.system();
 * UUID id = ids.get();
 * Instant created = UuidV7.timestampOf(id);
 * }</pre>
 */
public final class UuidV7 implements Supplier<UUID> {

  private static final long MAX_COUNTER = 0xFFF;

  private final Clock clock;
  private final RandomGenerator random;
  private long lastMillis = -1;
  private long counter;

  /**
   * @param clock source of the timestamp (inject a fixed clock in tests)
   * @param random source of the random bits; must be safe to call from the caller's threads
   */
  public UuidV7(Clock clock, RandomGenerator random) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** A generator on the UTC system clock and a {@link java.security.SecureRandom}. */
  public static UuidV7 system() {
    return new UuidV7(Clock.systemUTC(), new java.security.SecureRandom());
  }

  @Override
  public synchronized UUID get() {
    long now = clock.millis();
    if (now > lastMillis) {
      lastMillis = now;
      // Start in the lower half so there is room to count up within this millisecond.
      counter = random.nextLong(MAX_COUNTER / 2 + 1);
    } else if (counter < MAX_COUNTER) {
      counter++;
    } else {
      // Counter exhausted (or clock went back and we are already ahead): borrow the next ms.
      lastMillis++;
      counter = random.nextLong(MAX_COUNTER / 2 + 1);
    }
    long msb = (lastMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | counter;
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }

  /**
   * The creation time encoded in a UUIDv7.
   *
   * @throws IllegalArgumentException if {@code id} is not a version 7 UUID
   */
  public static Instant timestampOf(UUID id) {
    if (id.version() != 7) {
      throw new IllegalArgumentException("not a UUIDv7 (version " + id.version() + "): " + id);
    }
    return Instant.ofEpochMilli(id.getMostSignificantBits() >>> 16);
  }
}
