package io.herald.bench.relay;

import io.herald.bench.suite.PostgresClientTools;
import io.herald.bench.suite.ProcessStats;
import io.herald.devstack.PostgresServer;
import io.herald.devstack.StackContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * PostgreSQL's {@code pg_recvlogical} (Debian package postgresql-client) as a relay drain's peer:
 * streams a pgoutput slot ({@code proto_version} 1, the stack's publication) to /dev/null up to a
 * WAL position, and reports its own time, CPU and peak RSS.
 */
public final class PgRecvLogical {

  private PgRecvLogical() {}

  /** The binary; fails naming the package to install when there is none. */
  public static Path locate() {
    return PostgresClientTools.locate("pg_recvlogical");
  }

  /**
   * Drains {@code slot} of the stack's database up to {@code endLsn} into /dev/null.
   *
   * @throws IllegalStateException if it exits non-zero (with its output) or runs longer than {@code
   *     timeout} (it is killed)
   */
  public static ProcessStats.Finished drain(
      StackContext context, String slot, String endLsn, Duration timeout)
      throws IOException, InterruptedException {
    PostgresServer postgres = context.stack().postgres();
    String conninfo =
        "host=%s port=%d dbname=%s user=%s"
            .formatted(postgres.host(), postgres.port(), context.database(), context.user());
    List<String> command =
        List.of(
            locate().toString(),
            "-d",
            conninfo,
            "--slot",
            slot,
            "--start",
            "--no-loop",
            "--endpos",
            endLsn,
            "-o",
            "proto_version=1",
            "-o",
            "publication_names=" + context.publication(),
            "-f",
            "/dev/null");
    Path output = Files.createTempFile("pg_recvlogical", ".out");
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().put("PGPASSWORD", context.password() == null ? "" : context.password());
      builder.redirectErrorStream(true).redirectOutput(output.toFile());
      ProcessStats.Finished finished = ProcessStats.watch(builder.start(), timeout);
      if (finished.exitCode() != 0) {
        throw new IllegalStateException(
            "pg_recvlogical exited with "
                + finished.exitCode()
                + " ("
                + command
                + "):\n"
                + Files.readString(output, StandardCharsets.UTF_8));
      }
      return finished;
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
