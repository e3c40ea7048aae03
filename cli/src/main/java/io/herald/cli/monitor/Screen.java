package io.herald.cli.monitor;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link Snapshot} for people: one line per figure under a title, then the sources. In
 * ANSI form the frame starts with cursor-home, ends each line with clear-to-end-of-line and the
 * frame with clear-to-end-of-screen, so that it overwrites the previous frame in place on any
 * VT100-compatible terminal (over SSH too) without a curses library, and marks what needs a look in
 * colour. The plain form has no escape codes: one snapshot after the other. Stateless.
 */
final class Screen {

  static final String CLEAR_SCREEN = "\u001b[2J";
  static final String HOME = "\u001b[H";
  static final String CLEAR_LINE = "\u001b[K";
  static final String CLEAR_BELOW = "\u001b[J";
  private static final String RED = "\u001b[31m";
  private static final String YELLOW = "\u001b[33m";
  private static final String BOLD = "\u001b[1m";
  private static final String RESET = "\u001b[0m";

  private static final int LABEL_WIDTH = 22;

  private final boolean ansi;
  private final StringBuilder text = new StringBuilder();

  private Screen(boolean ansi) {
    this.ansi = ansi;
  }

  /** The frame of {@code s}: with escape codes when {@code ansi}, else plain lines. */
  static String render(Snapshot s, boolean ansi) {
    return new Screen(ansi).frame(s);
  }

  private String frame(Snapshot s) {
    if (ansi) {
      text.append(HOME);
    }
    line(paint(BOLD, "herald monitor") + "  " + atSecond(s.at()));
    row("rates in", ratesIn(s));
    row("rates out", ratesOut(s));
    row("deliveries", deliveries(s));
    row("uncertain", attention(s, s.uncertain(), YELLOW));
    row("needs reconciliation", attention(s, s.needsReconciliation(), RED));
    row("unknown destination", attention(s, s.unknownDestination(), RED));
    row("dlq arrivals", dlq(s));
    row("relay", s.relay().state() == null ? missing(s, "relay") : relayState(s.relay().state()));
    row(
        "slot lag",
        s.relay().slotLagBytes() != null
            ? bytes(s.relay().slotLagBytes())
            : status(s, "relay").equals("ok") ? "not measured" : missing(s, "relay"));
    row("last heartbeat", heartbeat(s));
    row("consumer lag", consumerLag(s));
    row("guarantees", s.destinations() == null ? missing(s, "consumer") : guarantees(s));
    line("sources");
    for (Snapshot.Source source : s.sources()) {
      String status = source.status();
      line(
          "  "
              + pad(source.name(), LABEL_WIDTH - 2)
              + (source.endpoint() == null ? "" : source.endpoint() + "  ")
              + (status.equals("ok") ? status : paint(RED, status)));
    }
    if (ansi) {
      text.append(CLEAR_BELOW);
    }
    return text.toString();
  }

  private String ratesIn(Snapshot s) {
    Counters.Rates r = s.rates();
    return "requested "
        + rate(s, r.publicationsRequestedPerSecond(), "writer")
        + " (writer), events "
        + rate(s, r.publicationEventsPerSecond(), "kafka")
        + " (publication events topic)";
  }

  private String ratesOut(Snapshot s) {
    return "published " + rate(s, s.rates().deliveriesPublishedPerSecond(), "consumer");
  }

  private String rate(Snapshot s, Double perSecond, String source) {
    if (perSecond != null) {
      return String.format(Locale.ROOT, "%.1f/s", perSecond);
    }
    // Reachable but no rate: the first sample, which has nothing to compare with.
    return status(s, source).equals("ok") ? "-/s" : missing(s, source);
  }

  private String deliveries(Snapshot s) {
    if (s.deliveries() == null) {
      return missing(s, "consumer");
    }
    StringBuilder line = new StringBuilder();
    for (Map.Entry<String, Long> entry : s.deliveries().entrySet()) {
      line.append(line.isEmpty() ? "" : "  ")
          .append(entry.getKey())
          .append(' ')
          .append(entry.getValue());
    }
    return line.toString();
  }

  private String attention(Snapshot s, Snapshot.Attention a, String colour) {
    if (a.count() == null) {
      return missing(s, "consumer");
    }
    String count = a.count() > 0 ? paint(colour, Long.toString(a.count())) : "0";
    if (a.oldestAgeSeconds() != null) {
      return count + ", oldest " + duration(a.oldestAgeSeconds());
    }
    String api = status(s, "operator-api");
    return a.count() > 0 && !api.equals("ok")
        ? count + " (age: operator API " + word(api) + ")"
        : count;
  }

  private String dlq(Snapshot s) {
    Snapshot.DeadLetters d = s.dlq();
    if (d.onTopic() == null) {
      return missing(s, "kafka");
    }
    String since = Long.toString(d.sinceStart());
    return (d.sinceStart() > 0 ? paint(YELLOW, since) : since)
        + " since start, "
        + d.onTopic()
        + " on the topic"
        + (d.lastArrivalAgeSeconds() == null
            ? ""
            : ", last " + duration(d.lastArrivalAgeSeconds()) + " ago");
  }

  private String relayState(String state) {
    return state.equals("streaming") ? state : paint(YELLOW, state);
  }

  private String heartbeat(Snapshot s) {
    Snapshot.Heartbeat h = s.heartbeat();
    if (h.ageSeconds() != null) {
      return duration(h.ageSeconds()) + " ago (" + h.source() + ")";
    }
    if (status(s, "relay").equals("ok") || status(s, "kafka").equals("ok")) {
      return "none";
    }
    return missing(s, "relay");
  }

  /** {@code dest-a: exactly-once in effect (...); dest-b: ...}: what each destination allows. */
  private static String guarantees(Snapshot s) {
    if (s.destinations().isEmpty()) {
      return "not reported";
    }
    StringBuilder text = new StringBuilder();
    s.destinations()
        .forEach(
            (destination, guarantee) ->
                text.append(text.isEmpty() ? "" : "; ")
                    .append(destination)
                    .append(": ")
                    .append(guarantee));
    return text.toString();
  }

  private String consumerLag(Snapshot s) {
    Snapshot.ConsumerLag lag = s.consumerLag();
    if (lag.group() == null) {
      return missing(s, "consumer");
    }
    if (lag.records() == null) {
      return missing(s, "kafka");
    }
    return lag.records() + " records (group " + lag.group() + " on " + lag.topic() + ")";
  }

  private String missing(Snapshot s, String source) {
    return paint(RED, word(status(s, source)));
  }

  /** "unreachable" or "not configured": the status without its reason (shown under sources). */
  private static String word(String status) {
    int colon = status.indexOf(':');
    return colon < 0 ? status : status.substring(0, colon);
  }

  private static String status(Snapshot s, String source) {
    return s.sources().stream()
        .filter(x -> x.name().equals(source))
        .map(Snapshot.Source::status)
        .findFirst()
        .orElse("not configured");
  }

  /** {@code 2026-12-01T12:00:00.123456Z} to the second, for people. */
  private static String atSecond(String at) {
    try {
      return Instant.parse(at).truncatedTo(ChronoUnit.SECONDS).toString();
    } catch (DateTimeParseException e) {
      // Not an instant (a snapshot built by hand): show it as it is.
      return at;
    }
  }

  /** 42s, 3m07s, 2h05m, 3d04h. */
  static String duration(double seconds) {
    long s = Math.round(Math.floor(seconds));
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3600);
  }

  /** 512 B, 1.5 KiB, 2.0 GiB. */
  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  private void row(String label, String value) {
    line(pad(label, LABEL_WIDTH) + value);
  }

  private void line(String line) {
    text.append(line);
    if (ansi) {
      text.append(CLEAR_LINE);
    }
    text.append('\n');
  }

  private String paint(String colour, String value) {
    return ansi ? colour + value + RESET : value;
  }

  private static String pad(String label, int width) {
    return label.length() >= width ? label + " " : label + " ".repeat(width - label.length());
  }
}
