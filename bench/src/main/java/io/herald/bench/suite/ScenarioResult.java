package io.herald.bench.suite;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What one scenario measured: a table for the terminal and BENCHMARKS.md, the workload it ran, the
 * plots it drew and its figures by name (what the smoke test checks came out).
 *
 * @param workload rows per transaction, payload, partitions, machine: what the figures depend on
 * @param figures named numbers, e.g. {@code max_publications_per_second}
 */
public record ScenarioResult(
    String id,
    String title,
    String workload,
    List<String> header,
    List<List<String>> rows,
    List<String> notes,
    List<Path> plots,
    java.util.Map<String, Double> figures) {

  public ScenarioResult {
    Objects.requireNonNull(id, "id");
    header = List.copyOf(header);
    rows = rows.stream().map(List::copyOf).toList();
    notes = List.copyOf(notes);
    plots = List.copyOf(plots);
    figures = java.util.Map.copyOf(figures);
  }

  /** The table as Markdown. */
  public String markdownTable() {
    StringBuilder out = new StringBuilder();
    out.append("| ").append(String.join(" | ", header)).append(" |\n");
    out.append("|").append(" --- |".repeat(header.size())).append('\n');
    for (List<String> row : rows) {
      out.append("| ").append(String.join(" | ", row)).append(" |\n");
    }
    return out.toString();
  }

  /** The table aligned in columns, for the terminal. */
  public String plainTable() {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    appendRow(out, header, widths);
    for (List<String> row : rows) {
      appendRow(out, row, widths);
    }
    return out.toString();
  }

  private static void appendRow(StringBuilder out, List<String> cells, int[] widths) {
    for (int i = 0; i < cells.size(); i++) {
      out.append(i == 0 ? "  " : "  ");
      out.append(String.format("%-" + widths[i] + "s", cells.get(i)));
    }
    out.append('\n');
  }
}
