package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PgbenchTest {

  @TempDir Path dir;

  @Test
  void shouldReplaceEachPlaceholderInOrderWhenFillingAStatement() {
    String sql = Pgbench.fill("INSERT INTO t (a, b) VALUES (?, ?::jsonb)", List.of("1", "'{}'"));

    assertThat(sql).isEqualTo("INSERT INTO t (a, b) VALUES (1, '{}'::jsonb)");
  }

  @Test
  void shouldRefuseWhenPlaceholdersAndExpressionsDiffer() {
    assertThatThrownBy(() -> Pgbench.fill("SELECT ?, ?", List.of("1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 placeholders and 1 expressions");
    assertThatThrownBy(() -> Pgbench.fill("SELECT ?", List.of("1", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 placeholders and 2 expressions");
  }

  @Test
  void shouldReadTheRateWhenPgbenchReportsIt() {
    String output =
        "number of transactions actually processed: 12345\n"
            + "latency average = 25.9 ms\n"
            + "tps = 1234.567890 (without initial connection time)\n";

    assertThat(Pgbench.tps(output)).isEqualTo(1234.56789);
  }

  @Test
  void shouldFailNamingTheOutputWhenNoRateWasPrinted() {
    assertThatThrownBy(() -> Pgbench.tps("FATAL: password authentication failed"))
        .hasMessageContaining("printed no tps")
        .hasMessageContaining("password authentication failed");
  }

  @Test
  void shouldPreferThePathWhenBothHaveOne() throws IOException {
    Path onPath = executable(dir.resolve("bin"));
    executable(dir.resolve("lib/17/bin"));

    assertThat(Pgbench.locate("/nonexistent:" + onPath.getParent(), dir.resolve("lib")))
        .contains(onPath);
  }

  @Test
  void shouldTakeTheHighestDebianVersionWhenThePathHasNone() throws IOException {
    executable(dir.resolve("lib/9/bin"));
    Path newest = executable(dir.resolve("lib/17/bin"));
    executable(dir.resolve("lib/15/bin"));

    assertThat(Pgbench.locate("/nonexistent", dir.resolve("lib"))).contains(newest);
  }

  @Test
  void shouldFindNothingWhenNeitherHasOne() {
    assertThat(Pgbench.locate("/nonexistent", dir.resolve("lib"))).isEmpty();
    assertThat(Pgbench.locate(null, dir.resolve("lib"))).isEmpty();
  }

  private static Path executable(Path directory) throws IOException {
    Files.createDirectories(directory);
    Path binary = directory.resolve("pgbench");
    Files.writeString(binary, "#!/bin/sh\n");
    Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
    return binary;
  }
}
