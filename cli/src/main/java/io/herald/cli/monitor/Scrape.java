package io.herald.cli.monitor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * One {@code /metrics} answer in the Prometheus text format (version 0.0.4, what Micrometer's
 * Prometheus registry writes), reduced to its samples: a name, labels and a value per line;
 * comments ({@code # HELP}, {@code # TYPE}) and timestamps are dropped. Only what the monitor reads
 * is supported: no exemplars, no OpenMetrics extras. Immutable.
 */
record Scrape(List<Sample> samples) {

  /** One sample line: {@code name{label="value",...} value}. */
  record Sample(String name, Map<String, String> labels, double value) {
    Sample {
      Objects.requireNonNull(name, "name");
      labels = Map.copyOf(labels);
    }
  }

  Scrape {
    samples = List.copyOf(samples);
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming the line when a sample line is malformed (something
   *     other than a Prometheus endpoint answered)
   */
  static Scrape parse(String text) {
    List<Sample> samples = new ArrayList<>();
    int number = 0;
    for (String line : text.split("\n", -1)) {
      number++;
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      try {
        samples.add(sample(trimmed));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "not Prometheus text at line " + number + ": " + abbreviate(trimmed), e);
      }
    }
    return new Scrape(samples);
  }

  /**
   * The sum of every sample named {@code name} whose labels include {@code labels}; empty if none.
   */
  OptionalDouble sum(String name, Map<String, String> labels) {
    double sum = 0;
    boolean found = false;
    for (Sample sample : samples) {
      if (sample.name().equals(name) && sample.labels().entrySet().containsAll(labels.entrySet())) {
        sum += sample.value();
        found = true;
      }
    }
    return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }

  /** {@link #sum} over every series of {@code name}. */
  OptionalDouble sum(String name) {
    return sum(name, Map.of());
  }

  /** The value of each series of {@code name}, by the value of its label {@code label}. */
  Map<String, Double> byLabel(String name, String label) {
    Map<String, Double> values = new TreeMap<>();
    for (Sample sample : samples) {
      String value = sample.labels().get(label);
      if (sample.name().equals(name) && value != null) {
        values.merge(value, sample.value(), Double::sum);
      }
    }
    return values;
  }

  private static Sample sample(String line) {
    int brace = line.indexOf('{');
    int space = line.indexOf(' ');
    Map<String, String> labels = new LinkedHashMap<>();
    String name;
    int rest;
    if (brace >= 0 && (space < 0 || brace < space)) {
      name = line.substring(0, brace);
      rest = labels(line, brace + 1, labels);
    } else if (space > 0) {
      name = line.substring(0, space);
      rest = space;
    } else {
      throw new IllegalArgumentException("no value");
    }
    if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
      throw new IllegalArgumentException("bad metric name '" + name + "'");
    }
    String[] fields = line.substring(rest).strip().split("\\s+");
    if (fields.length < 1 || fields.length > 2 || fields[0].isEmpty()) {
      throw new IllegalArgumentException("expected a value and an optional timestamp");
    }
    return new Sample(name, labels, value(fields[0]));
  }

  /** Reads {@code key="value",...}} from {@code from}; returns the index after the brace. */
  private static int labels(String line, int from, Map<String, String> labels) {
    int i = from;
    while (true) {
      while (i < line.length() && (line.charAt(i) == ',' || line.charAt(i) == ' ')) {
        i++;
      }
      if (i >= line.length()) {
        throw new IllegalArgumentException("unclosed label set");
      }
      if (line.charAt(i) == '}') {
        return i + 1;
      }
      int equals = line.indexOf('=', i);
      if (equals < 0 || equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
        throw new IllegalArgumentException("expected label=\"value\" at column " + (i + 1));
      }
      String key = line.substring(i, equals).strip();
      StringBuilder value = new StringBuilder();
      i = equals + 2;
      while (true) {
        if (i >= line.length()) {
          throw new IllegalArgumentException("unclosed label value of " + key);
        }
        char c = line.charAt(i++);
        if (c == '"') {
          break;
        }
        if (c == '\\' && i < line.length()) {
          char escaped = line.charAt(i++);
          value.append(escaped == 'n' ? '\n' : escaped);
        } else {
          value.append(c);
        }
      }
      labels.put(key, value.toString());
    }
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  private static String abbreviate(String line) {
    return line.length() <= 120 ? line : line.substring(0, 120) + "...";
  }
}
