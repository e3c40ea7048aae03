package io.herald.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a property's text becomes a typed value and back. Implementations are stateless and
 * thread-safe; {@link #parse} throws {@link IllegalArgumentException} with a message that does not
 * repeat the value (the caller adds key and value, masking secrets).
 *
 * @param <T> the Java type of the value
 */
public interface ConfigType<T> {

  /** A short name for documentation: {@code int}, {@code duration}, ... */
  String name();

  /** Parses the (already trimmed) text. */
  T parse(String text);

  /** Writes a value the way {@link #parse} reads it. */
  default String render(T value) {
    return String.valueOf(value);
  }

  /** Any text, trimmed. */
  ConfigType<String> STRING = simple("string", text -> text);

  /** A 32-bit integer, decimal. */
  ConfigType<Integer> INT =
      simple(
          "int",
          text -> {
            try {
              return Integer.valueOf(text);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("not an integer", e);
            }
          });

  /** A 64-bit integer, decimal. */
  ConfigType<Long> LONG =
      simple(
          "long",
          text -> {
            try {
              return Long.valueOf(text);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("not an integer", e);
            }
          });

  /**
   * Exactly {@code true} or {@code false} (case-insensitive); {@code yes}, {@code 1} are errors.
   */
  ConfigType<Boolean> BOOLEAN =
      simple(
          "boolean",
          text -> {
            if (text.equalsIgnoreCase("true")) {
              return true;
            }
            if (text.equalsIgnoreCase("false")) {
              return false;
            }
            throw new IllegalArgumentException("not a boolean (expected true or false)");
          });

  /** A duration in {@link Durations} syntax: {@code 500ms}, {@code 30s}, {@code 5m}. */
  ConfigType<Duration> DURATION =
      new ConfigType<>() {
        @Override
        public String name() {
          return "duration";
        }

        @Override
        public Duration parse(String text) {
          return Durations.parse(text);
        }

        @Override
        public String render(Duration value) {
          return Durations.format(value);
        }
      };

  /**
   * A size in bytes: a whole number, optionally followed by {@code KiB}, {@code MiB}, {@code GiB}.
   */
  ConfigType<Long> BYTES =
      new ConfigType<>() {
        private static final Pattern SYNTAX = Pattern.compile("(\\d{1,15})(B|KiB|MiB|GiB)?");

        @Override
        public String name() {
          return "bytes";
        }

        @Override
        public Long parse(String text) {
          Matcher m = SYNTAX.matcher(text);
          if (!m.matches()) {
            throw new IllegalArgumentException(
                "not a size (expected a whole number of bytes, optionally with KiB, MiB or GiB)");
          }
          long amount = Long.parseLong(m.group(1));
          String unit = m.group(2) == null ? "B" : m.group(2);
          int shift =
              switch (unit) {
                case "KiB" -> 10;
                case "MiB" -> 20;
                case "GiB" -> 30;
                default -> 0;
              };
          if (Long.numberOfLeadingZeros(amount) <= shift) {
            throw new IllegalArgumentException("size too large");
          }
          return amount << shift;
        }

        @Override
        public String render(Long value) {
          for (String unit : new String[] {"GiB", "MiB", "KiB"}) {
            int shift = unit.equals("GiB") ? 30 : unit.equals("MiB") ? 20 : 10;
            if (value != 0 && value % (1L << shift) == 0) {
              return (value >> shift) + unit;
            }
          }
          return Long.toString(value);
        }
      };

  /** A comma-separated list of non-empty strings, each trimmed. */
  ConfigType<List<String>> LIST =
      new ConfigType<>() {
        @Override
        public String name() {
          return "list";
        }

        @Override
        public List<String> parse(String text) {
          if (text.isEmpty()) {
            return List.of();
          }
          List<String> items = Arrays.stream(text.split(",", -1)).map(String::strip).toList();
          if (items.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("empty item in comma-separated list");
          }
          return items;
        }

        @Override
        public String render(List<String> value) {
          return String.join(",", value);
        }
      };

  /**
   * An enum written in lowercase with {@code -} for {@code _} ({@code DELETE_IMMEDIATELY} is {@code
   * delete-immediately}).
   */
  static <E extends Enum<E>> ConfigType<E> enumType(Class<E> type) {
    return new ConfigType<>() {
      @Override
      public String name() {
        return Arrays.stream(type.getEnumConstants())
            .map(this::render)
            .reduce((a, b) -> a + "|" + b)
            .orElse(type.getSimpleName());
      }

      @Override
      public E parse(String text) {
        for (E constant : type.getEnumConstants()) {
          if (render(constant).equals(text)) {
            return constant;
          }
        }
        throw new IllegalArgumentException("not one of " + name());
      }

      @Override
      public String render(E value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
      }
    };
  }

  private static <T> ConfigType<T> simple(
      String name, java.util.function.Function<String, T> parser) {
    return new ConfigType<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public T parse(String text) {
        return parser.apply(text);
      }
    };
  }
}
