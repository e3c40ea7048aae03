package io.herald.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duration syntax of Herald's property files: a whole number followed by a unit, {@code ms},
 * {@code s}, {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h},
 * {@code 7d}). No unit is not accepted: {@code 30} could mean seconds or milliseconds.
 */
public final class Durations {

  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Parses {@code 30s}-style text.
   *
   * @throws IllegalArgumentException if the text does not follow the syntax
   */
  public static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "not a duration (expected a whole number and a unit: ms, s, m, h or d, like 30s)");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      case "d" -> Duration.ofDays(amount);
      default -> throw new IllegalStateException("unit matched by the pattern: " + m.group(2));
    };
  }

  /** Writes {@code duration} in the largest unit that represents it exactly ({@code 90s}). */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("negative duration: " + duration);
    }
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0s";
    }
    if (millis % 86_400_000L == 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1_000L == 0) {
      return millis / 1_000L + "s";
    }
    return millis + "ms";
  }
}
