package io.herald.cli.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.cli.Herald;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code herald dlq}'s argument validation: nothing here needs Kafka or a database. */
class DlqUsageTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Herald.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @ParameterizedTest
  @ValueSource(strings = {"dlq --help", "dlq list --help", "dlq replay --help"})
  void shouldPrintHelpWithJsonAndConfigDir(String args) {
    assertThat(run(args.split(" "))).isZero();
    assertThat(out.toString()).contains("Usage: herald dlq");
    if (!args.equals("dlq --help")) {
      assertThat(out.toString()).contains("--json").contains("--config-dir");
    }
  }

  @Test
  void shouldExitTwoWithoutASubcommand() {
    assertThat(run("dlq")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing subcommand");
  }

  @Test
  void shouldExitTwoWhenReplayHasNeitherIdNorAll() {
    assertThat(run("dlq", "replay")).isEqualTo(2);
    assertThat(err.toString()).contains("--id").contains("--all");
  }

  @Test
  void shouldExitTwoWhenReplayHasBothIdAndAll() {
    assertThat(run("dlq", "replay", "--all", "--id", "0190c7d6-3b1e-7a5e-9f4b-2d1c3e4f5a6b"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void shouldExitTwoForAnIdThatIsNotAUuid() {
    assertThat(run("dlq", "replay", "--id", "nope")).isEqualTo(2);
  }

  @Test
  void shouldExitTwoForALimitBelowOne() {
    assertThat(run("dlq", "list", "--limit", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--limit must be at least 1");
  }

  @Test
  void shouldExitTwoNamingTheFileWhenTheConfigDirHasNoConsumerFile() {
    assertThat(run("--config-dir", "/nonexistent", "dlq", "list")).isEqualTo(2);
    assertThat(err.toString()).contains("consumer.properties");
  }
}
