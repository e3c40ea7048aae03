package io.herald.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.herald.cli.Herald;
import io.herald.common.json.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald monitor} in-process where it needs no running dependency. */
class MonitorCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Herald.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void shouldDocumentItsOptionsAndExitCodes() {
    assertThat(run("monitor", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: herald monitor")
        .contains("--once", "--interval", "--json", "--no-ansi", "--config-dir")
        .contains("3   no source");
  }

  @Test
  void shouldExitThreeWhenNoSourceIsConfiguredOrReachable() {
    int exit = run("--config-dir", dir.toString(), "monitor", "--once", "--interval", "10ms");

    assertThat(exit).as(err.toString()).isEqualTo(3);
    assertThat(out.toString())
        .containsPattern("(?m)^deliveries +not configured$")
        .contains("not configured: no consumer.properties in " + dir);
  }

  @Test
  void shouldPrintOneJsonObjectWithOnceAndJson() throws Exception {
    int exit =
        run("--config-dir", dir.toString(), "monitor", "--once", "--json", "--interval", "10ms");

    assertThat(exit).isEqualTo(3);
    JsonNode snapshot = Json.mapper().readTree(out.toString());
    assertThat(snapshot.path("anyReached").asBoolean(true)).isFalse();
    assertThat(snapshot.path("sources")).hasSize(5);
  }

  @Test
  void shouldAppendPlainSnapshotsWithSamples() {
    assertThat(
            run("--config-dir", dir.toString(), "monitor", "--samples", "2", "--interval", "10ms"))
        .isEqualTo(3);
    assertThat(out.toString().split("herald monitor  ", -1)).hasSize(3);
    assertThat(out.toString()).doesNotContain("\u001b");
  }

  @Test
  void shouldRefuseAnIntervalThatIsNotADuration() throws Exception {
    Files.createDirectories(dir);
    assertThat(run("monitor", "--once", "--interval", "2")).isEqualTo(2);
    assertThat(err.toString()).contains("not a duration");
  }
}
