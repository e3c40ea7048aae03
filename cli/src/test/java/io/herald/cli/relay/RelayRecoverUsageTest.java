package io.herald.cli.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.cli.Herald;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code herald relay recover}'s usage: nothing here needs Kafka or a database. */
class RelayRecoverUsageTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Herald.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void shouldPrintHelpWithItsOptionsAndExitCodes() {
    assertThat(run("relay", "recover", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: herald relay recover")
        .contains("--dry-run")
        .contains("--overlap")
        .contains("--all-retained")
        .contains("--json")
        .contains("--config-dir")
        .contains("1 refused");
  }

  @Test
  void shouldExitTwoWithoutASubcommand() {
    assertThat(run("relay")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing subcommand");
  }

  @Test
  void shouldExitTwoForAnOverlapThatIsNotADuration() {
    assertThat(run("relay", "recover", "--overlap", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--overlap must be a duration");
  }
}
