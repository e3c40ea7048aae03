package io.herald.cli.dlq;

import io.herald.cli.deliveries.Table;
import java.util.List;

/** The human-readable forms of {@code dlq list} and {@code dlq replay}. Pure; thread-safe. */
final class DlqOutput {

  /** Longest detail shown in the table; {@code --json} has it whole. */
  static final int DETAIL_WIDTH = 80;

  private DlqOutput() {}

  /**
   * A table of {@code shown}, oldest first, and a summary line: how many dead letters the topic
   * holds ({@code matched} with {@code --reason}), how many were replayed, how many are shown.
   */
  static String list(String topic, List<DeadLetter> shown, long matched, String reason) {
    String nl = System.lineSeparator();
    StringBuilder text = new StringBuilder();
    if (!shown.isEmpty()) {
      Table table =
          new Table(List.of("DLQ", "ID", "REASON", "FAILED AT", "ORIGINAL", "REPLAYED", "DETAIL"));
      for (DeadLetter d : shown) {
        table.row(
            List.of(
                d.position(),
                orDash(d.id()),
                orDash(d.reason()),
                orDash(d.failedAt()),
                orDash(d.original()),
                d.replayedAt() == null ? "-" : d.replayedAt() + " -> " + orDash(d.replayedTo()),
                orDash(shorten(d.detail()))));
      }
      text.append(table.render());
    }
    long replayed = shown.stream().filter(d -> d.replayedAt() != null).count();
    text.append(matched)
        .append(matched == 1 ? " dead letter" : " dead letters")
        .append(reason == null ? "" : " with reason " + reason)
        .append(" in ")
        .append(topic);
    if (shown.size() < matched) {
      text.append("; the first ").append(shown.size()).append(" shown (--limit)");
    }
    text.append("; ").append(replayed).append(" of those shown replayed").append(nl);
    return text.toString();
  }

  /** One line per dead letter, then the counts. */
  static String replay(List<ReplayResult> results) {
    String nl = System.lineSeparator();
    StringBuilder text = new StringBuilder();
    for (ReplayResult r : results) {
      String which = orDash(r.id()) + " (DLQ " + r.position() + ", " + orDash(r.reason()) + ")";
      switch (r.outcome()) {
        case ReplayResult.REPLAYED ->
            text.append("replayed ").append(which).append(" to ").append(r.replayedTo());
        case ReplayResult.ALREADY_REPLAYED ->
            text.append("already replayed ")
                .append(which)
                .append(" at ")
                .append(r.replayedAt())
                .append(" to ")
                .append(r.replayedTo())
                .append(": nothing to do");
        default -> text.append("skipped ").append(which).append(": ").append(r.note());
      }
      text.append(nl);
    }
    text.append(count(results, ReplayResult.REPLAYED))
        .append(" replayed, ")
        .append(count(results, ReplayResult.ALREADY_REPLAYED))
        .append(" already replayed, ")
        .append(count(results, ReplayResult.SKIPPED))
        .append(" skipped")
        .append(nl);
    return text.toString();
  }

  private static long count(List<ReplayResult> results, String outcome) {
    return results.stream().filter(r -> r.outcome().equals(outcome)).count();
  }

  static String shorten(String detail) {
    if (detail == null || detail.isEmpty()) {
      return null;
    }
    String oneLine = detail.replaceAll("\\s+", " ");
    return oneLine.length() <= DETAIL_WIDTH
        ? oneLine
        : oneLine.substring(0, DETAIL_WIDTH - 3) + "...";
  }

  private static String orDash(String value) {
    return value == null || value.isEmpty() ? "-" : value;
  }
}
