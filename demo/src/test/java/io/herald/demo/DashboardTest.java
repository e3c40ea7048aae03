package io.herald.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.common.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops/grafana/herald.json} loads as it is: every panel queries the dashboard's Prometheus
 * data source variable with a PromQL expression that parses (promtool checks each as a recording
 * rule; skipped, with the reason, without promtool). That its metric names exist is {@code
 * PipelineIT}'s live-scrape check.
 */
class DashboardTest {

  @Test
  void shouldQueryTheDatasourceVariableWhenEveryPanelIsRead() throws Exception {
    JsonNode dashboard = Json.mapper().readTree(OpsFiles.dashboard().toFile());
    Set<Integer> ids = new HashSet<>();

    assertThat(dashboard.path("uid").asText()).isEqualTo("herald");
    assertThat(dashboard.path("templating").path("list").get(0).path("type").asText())
        .isEqualTo("datasource");
    assertThat(dashboard.path("panels")).isNotEmpty();
    for (JsonNode panel : dashboard.path("panels")) {
      String title = panel.path("title").asText();
      assertThat(ids.add(panel.path("id").asInt())).as("unique id of " + title).isTrue();
      assertThat(panel.path("datasource").path("uid").asText())
          .as(title)
          .isEqualTo("${datasource}");
      assertThat(panel.path("targets")).as(title).isNotEmpty();
      for (JsonNode target : panel.path("targets")) {
        assertThat(target.path("expr").asText()).as(title).isNotBlank();
      }
    }
  }

  @Test
  void shouldParseEveryPanelQueryWhenPromtoolChecksThemAsRules(@TempDir Path dir) throws Exception {
    Promtool promtool = Promtool.find().orElse(null);
    assumeTrue(promtool != null, Promtool.MISSING);
    List<String> rules =
        new ArrayList<>(List.of("groups:", "  - name: herald-dashboard", "    rules:"));
    int n = 0;
    for (JsonNode panel : Json.mapper().readTree(OpsFiles.dashboard().toFile()).path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        rules.add("      - record: herald_dashboard_query_" + ++n);
        // A JSON string is a valid YAML double-quoted scalar.
        rules.add(
            "        expr: " + Json.mapper().writeValueAsString(target.path("expr").asText()));
      }
    }
    Files.write(dir.resolve("queries.yml"), rules);

    Promtool.Result result = promtool.run(dir, "check", "rules", "queries.yml");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS: " + n + " rules found");
  }
}
