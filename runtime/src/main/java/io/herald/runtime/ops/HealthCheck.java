package io.herald.runtime.ops;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * One named check reported on {@code /health}. Implementations must be thread-safe and should
 * answer within a few seconds (they run on the request thread); an exception counts as DOWN.
 */
public interface HealthCheck {

  /** The name shown in the health JSON ({@code database}, {@code kafka}, {@code relay-slot}). */
  String name();

  /** The current status. */
  Status check();

  /** A check from a name and a supplier. */
  static HealthCheck of(String name, Supplier<Status> check) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(check, "check");
    return new HealthCheck() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Status check() {
        return check.get();
      }
    };
  }

  /**
   * The outcome of a check.
   *
   * @param up whether the component works
   * @param detail a short, human-readable explanation (no secrets)
   */
  record Status(boolean up, String detail) {
    public Status {
      Objects.requireNonNull(detail, "detail");
    }

    public static Status up(String detail) {
      return new Status(true, detail);
    }

    public static Status down(String detail) {
      return new Status(false, detail);
    }
  }
}
