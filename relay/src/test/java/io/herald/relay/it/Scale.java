package io.herald.relay.it;

/**
 * Test data sizes: the figures by default; {@code -Dherald.relay.it.scale=0.2} shrinks them
 * for a quick local run.
 */
final class Scale {

  private Scale() {}

  static int of(int count) {
    double factor = Double.parseDouble(System.getProperty("herald.relay.it.scale", "1"));
    return Math.max(10, (int) Math.round(count * factor));
  }
}
