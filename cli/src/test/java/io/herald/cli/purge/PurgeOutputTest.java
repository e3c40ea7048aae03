package io.herald.cli.purge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.runtime.db.ExpiredRows;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PurgeOutputTest {

  private static final String NL = System.lineSeparator();

  private static final List<ExpiredRows> TABLES =
      List.of(
          new ExpiredRows(
              "writer.outbox",
              "occurred_at older than writer.outbox.keep-days=7",
              Instant.parse("2026-11-24T12:00:00Z"),
              3),
          new ExpiredRows(
              "consumer.inbox",
              "received_at older than consumer.inbox.retention=14d",
              Instant.parse("2026-11-17T12:00:00Z"),
              0));

  @Test
  void shouldListEachTableWithItsCutoffAndSayNothingWasDeletedOnADryRun() {
    String text = PurgeOutput.human(new PurgeCommand.Report(false, TABLES, 3));

    assertThat(text)
        .startsWith("TABLE ")
        .contains("CUT-OFF", "ROWS", "RULE")
        .containsPattern(
            "(?m)^writer\\.outbox +2026-11-24T12:00:00Z +3 +occurred_at older than"
                + " writer\\.outbox\\.keep-days=7$")
        .containsPattern("(?m)^consumer\\.inbox +2026-11-17T12:00:00Z +0 +received_at")
        .endsWith("dry run: 3 rows would be deleted; nothing deleted (--apply deletes them)" + NL);
  }

  @Test
  void shouldSayHowManyRowsWereDeletedWhenApplied() {
    assertThat(PurgeOutput.human(new PurgeCommand.Report(true, TABLES.subList(0, 1), 1)))
        .endsWith("applied: 1 row deleted" + NL);
  }

  @Test
  void shouldPrintTheTablesAsJson() {
    JsonNode json = PurgeOutput.json(new PurgeCommand.Report(false, TABLES, 3));

    assertThat(json.path("applied").asBoolean(true)).isFalse();
    assertThat(json.path("rows").asLong()).isEqualTo(3);
    assertThat(json.path("tables")).hasSize(2);
    assertThat(json.path("tables").get(0).path("table").asText()).isEqualTo("writer.outbox");
    assertThat(json.path("tables").get(0).path("cutoff").asText())
        .isEqualTo("2026-11-24T12:00:00Z");
    assertThat(json.path("tables").get(0).path("rows").asLong()).isEqualTo(3);
  }
}
