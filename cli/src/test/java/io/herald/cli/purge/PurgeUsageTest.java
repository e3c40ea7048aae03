package io.herald.cli.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.cli.Herald;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code herald purge}'s argument validation: exactly one of --dry-run and --apply. */
class PurgeUsageTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Herald.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void shouldPrintHelpWithBothModes() {
    assertThat(run("purge", "--help")).isZero();
    assertThat(out.toString()).contains("--dry-run", "--apply", "--json", "--config-dir");
  }

  @Test
  void shouldExitTwoWithNeitherDryRunNorApply() {
    assertThat(run("purge")).isEqualTo(2);
    assertThat(err.toString()).contains("--dry-run").contains("--apply");
  }

  @Test
  void shouldExitTwoWithBothDryRunAndApply() {
    assertThat(run("purge", "--dry-run", "--apply")).isEqualTo(2);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void shouldExitTwoNamingTheFileWhenTheConfigDirHasNoWriterFile() {
    assertThat(run("--config-dir", "/nonexistent", "purge", "--dry-run")).isEqualTo(2);
    assertThat(err.toString()).contains("writer.properties");
  }
}
