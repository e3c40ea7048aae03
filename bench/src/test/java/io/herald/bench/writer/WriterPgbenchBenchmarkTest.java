package io.herald.bench.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.herald.writer.job.JobStore;
import io.herald.writer.outbox.OutboxWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WriterPgbenchBenchmarkTest {

  @Test
  void shouldRunTheWritersOwnStatementsWhenPgbenchReadsTheScript() {
    String script = WriterPgbenchBenchmark.script("run1");

    assertThat(script).startsWith("\\set n random(").contains("BEGIN;", "COMMIT;");
    assertThat(script).doesNotContain("?");
    // The writer's SQL text, up to its first placeholder, appears as it is.
    for (String statement : List.of(JobStore.INSERT_JOB, OutboxWriter.INSERT)) {
      assertThat(script).contains(statement.substring(0, statement.indexOf('?')));
    }
  }

  @Test
  void shouldUseNoPgbenchVariableButItsOwnWhenTheContentHoldsColons() {
    String script = WriterPgbenchBenchmark.script("run1");

    // pgbench reads ":name" anywhere as a variable; only :n and :client_id are set.
    Matcher variable = Pattern.compile("(?<!:):([A-Za-z0-9_]+)").matcher(script);
    while (variable.find()) {
      assertThat(variable.group(1)).isIn("n", "client_id");
    }
  }
}
