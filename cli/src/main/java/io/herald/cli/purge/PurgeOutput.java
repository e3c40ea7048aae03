package io.herald.cli.purge;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.herald.cli.deliveries.Table;
import io.herald.common.json.Json;
import io.herald.runtime.db.ExpiredRows;
import java.util.List;

/** The outputs of {@code herald purge}. Pure; thread-safe. */
final class PurgeOutput {

  private PurgeOutput() {}

  /** A table per purged table (rule, cut-off, rows), then what was or would be deleted. */
  static String human(PurgeCommand.Report report) {
    Table table = new Table(List.of("TABLE", "CUT-OFF", "ROWS", "RULE"));
    for (ExpiredRows t : report.tables()) {
      table.row(List.of(t.table(), t.cutoff().toString(), Long.toString(t.rows()), t.rule()));
    }
    String rows = report.rows() + (report.rows() == 1 ? " row" : " rows");
    return table.render()
        + (report.applied()
            ? "applied: " + rows + " deleted"
            : "dry run: " + rows + " would be deleted; nothing deleted (--apply deletes them)")
        + System.lineSeparator();
  }

  /** {@code {"applied": ..., "rows": N, "tables": [{"table", "rule", "cutoff", "rows"}]}}. */
  static ObjectNode json(PurgeCommand.Report report) {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("applied", report.applied());
    root.put("rows", report.rows());
    ArrayNode tables = root.putArray("tables");
    for (ExpiredRows t : report.tables()) {
      tables
          .addObject()
          .put("table", t.table())
          .put("rule", t.rule())
          .put("cutoff", t.cutoff().toString())
          .put("rows", t.rows());
    }
    return root;
  }
}
