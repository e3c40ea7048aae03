package io.herald.relay.offsets;

/**
 * A PostgreSQL WAL position ({@code pg_lsn}), as the unsigned 64-bit number Debezium stores in its
 * offsets. Printed the way PostgreSQL prints it ({@code 16/B374D848}).
 */
public record Lsn(long value) implements Comparable<Lsn> {

  /** Parses PostgreSQL's text form {@code XXXXXXXX/XXXXXXXX}. */
  public static Lsn parse(String text) {
    int slash = text == null ? -1 : text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1) {
      throw new IllegalArgumentException("Not a pg_lsn: '" + text + "'");
    }
    long high = Long.parseLong(text.substring(0, slash), 16);
    long low = Long.parseLong(text.substring(slash + 1), 16);
    return new Lsn((high << 32) | low);
  }

  @Override
  public int compareTo(Lsn other) {
    return Long.compareUnsigned(value, other.value);
  }

  public boolean isAfter(Lsn other) {
    return compareTo(other) > 0;
  }

  @Override
  public String toString() {
    return Long.toHexString(value >>> 32).toUpperCase()
        + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }
}
