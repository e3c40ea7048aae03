package io.herald.cli.monitor;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What one source answered in one sample: a value, or why there is none. A source that cannot be
 * reached shows as "unreachable" in the view instead of failing it; one the configuration does not
 * name (no property file, port 0, no operator token) shows as "not configured". Immutable.
 *
 * @param value the answer, or null
 * @param problem null when {@code value} is set; otherwise what went wrong, for the operator
 * @param configured false when the source was not asked at all
 */
record Reading<T>(T value, String problem, boolean configured) {

  Reading {
    if ((value == null) == (problem == null)) {
      throw new IllegalArgumentException("a reading has either a value or a problem");
    }
  }

  static <T> Reading<T> of(T value) {
    return new Reading<>(Objects.requireNonNull(value, "value"), null, true);
  }

  static <T> Reading<T> unreachable(String problem) {
    return new Reading<>(null, problem, true);
  }

  static <T> Reading<T> notConfigured(String why) {
    return new Reading<>(null, why, false);
  }

  boolean reached() {
    return value != null;
  }

  Optional<T> get() {
    return Optional.ofNullable(value);
  }

  <R> Optional<R> map(Function<T, R> f) {
    return get().map(f);
  }

  /** "ok", "unreachable: ..." or "not configured: ...". */
  String status() {
    return reached() ? "ok" : (configured ? "unreachable: " : "not configured: ") + problem;
  }
}
