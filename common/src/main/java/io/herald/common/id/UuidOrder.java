package io.herald.common.id;

import java.util.Comparator;
import java.util.UUID;

/** How PostgreSQL orders {@code uuid} values, for code that must agree with it. */
public final class UuidOrder {

  private UuidOrder() {}

  /**
   * PostgreSQL orders {@code uuid} by its bytes, unsigned; {@link UUID#compareTo} compares signed
   * longs and disagrees for ids whose first bit is set.
   */
  public static final Comparator<UUID> DATABASE =
      (a, b) -> {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0
            ? high
            : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
      };
}
