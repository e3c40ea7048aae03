package io.herald.cli.deliveries;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: a header and rows, each column padded to its widest cell. Not thread-safe.
 */
public final class Table {

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(List<String> header) {
    this.header = List.copyOf(header);
  }

  public void row(List<String> cells) {
    if (cells.size() != header.size()) {
      throw new IllegalArgumentException(
          "a row of " + header.size() + " columns has " + cells.size() + " cells: " + cells);
    }
    rows.add(List.copyOf(cells));
  }

  public String render() {
    int[] widths = new int[header.size()];
    for (List<String> row : allRows()) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (List<String> row : allRows()) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(i == 0 ? "" : "  ").append(row.get(i));
        if (i < row.size() - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length()));
        }
      }
      text.append(line).append(System.lineSeparator());
    }
    return text.toString();
  }

  private List<List<String>> allRows() {
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    return all;
  }
}
