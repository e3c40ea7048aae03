package io.herald.config;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A check on one parsed value, with the rule it enforces written for the error message ("must be
 * between 1 and 65535"). Immutable and thread-safe.
 *
 * @param <T> the value type
 */
public final class Validator<T> {

  private final Predicate<? super T> test;
  private final String rule;

  private Validator(Predicate<? super T> test, String rule) {
    this.test = Objects.requireNonNull(test);
    this.rule = Objects.requireNonNull(rule);
  }

  /** A validator from a predicate and the rule it enforces ("must be ..."). */
  public static <T> Validator<T> of(Predicate<? super T> test, String rule) {
    return new Validator<>(test, rule);
  }

  /** Accepts everything. */
  public static <T> Validator<T> any() {
    return new Validator<>(value -> true, "any value");
  }

  /** An integer in {@code [min, max]}. */
  public static <N extends Number & Comparable<N>> Validator<N> between(N min, N max) {
    return of(
        v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0,
        "must be between " + min + " and " + max);
  }

  /** A number at least {@code min}. */
  public static <N extends Number & Comparable<N>> Validator<N> atLeast(N min) {
    return of(v -> v.compareTo(min) >= 0, "must be at least " + min);
  }

  /** A TCP port; 0 asks the operating system for a free one. */
  public static Validator<Integer> port() {
    return of(v -> v >= 0 && v <= 65535, "must be a TCP port between 0 and 65535");
  }

  /** A strictly positive duration. */
  public static Validator<Duration> positive() {
    return of(v -> !v.isZero() && !v.isNegative(), "must be longer than 0");
  }

  /** A duration of at least {@code min}. */
  public static Validator<Duration> atLeast(Duration min) {
    return of(v -> v.compareTo(min) >= 0, "must be at least " + Durations.format(min));
  }

  /** A duration from {@code min} to {@code max}, both included. */
  public static Validator<Duration> within(Duration min, Duration max) {
    return of(
        v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0,
        "between " + Durations.format(min) + " and " + Durations.format(max));
  }

  /** A string that is not blank. */
  public static Validator<String> notBlank() {
    return of(v -> !v.isBlank(), "must not be blank");
  }

  /** A string matching {@code regex} entirely. */
  public static Validator<String> matches(String regex, String rule) {
    Pattern pattern = Pattern.compile(regex);
    return of(v -> pattern.matcher(v).matches(), rule);
  }

  /** A lowercase hex SHA-256 (64 characters). */
  public static Validator<String> sha256Hex() {
    return matches("[0-9a-f]{64}", "must be a SHA-256 in 64 lowercase hex characters");
  }

  /** An http or https URL. */
  public static Validator<String> httpUrl() {
    return matches("https?://[^\\s/?#]+(/[^\\s]*)?", "must be an http:// or https:// URL");
  }

  /** Whether {@code value} passes. */
  public boolean test(T value) {
    return test.test(value);
  }

  /** The rule, as written in error messages. */
  public String rule() {
    return rule;
  }

  /** Both this and {@code other}. */
  public Validator<T> and(Validator<? super T> other) {
    return new Validator<T>(v -> test(v) && other.test(v), rule + " and " + other.rule());
  }
}
