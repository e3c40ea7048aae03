package io.herald.bench.suite;

import io.herald.devstack.StackContext;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's {@code pgbench} (Debian package postgresql-client) as the benchmarks' peer: runs a
 * custom script ({@code -f}) against a database of the stack and reads its rate and its own CPU and
 * memory. Found by {@link PostgresClientTools}.
 */
public final class Pgbench {

  private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");
  private static final Pattern TRANSACTIONS =
      Pattern.compile("number of transactions actually processed: ([0-9]+)");

  private Pgbench() {}

  /**
   * One run's figures.
   *
   * @param usage pgbench's own wall time, CPU and peak RSS (PostgreSQL's work is in its backends)
   */
  public record Run(double tps, long transactions, String output, ProcessStats.Finished usage) {}

  /** The pgbench binary; fails naming the package to install when there is none. */
  public static Path locate() {
    return PostgresClientTools.locate("pgbench");
  }

  /** {@link PostgresClientTools#locate(String, String, Path)} of pgbench. */
  static Optional<Path> locate(String path, Path debianVersions) {
    return PostgresClientTools.locate("pgbench", path, debianVersions);
  }

  /**
   * Runs {@code script} ({@code -f}) on the stack's database with {@code clients} connections on
   * two threads for {@code seconds}, with {@code extraOptions} (e.g. {@code -M prepared}) before
   * the connection options.
   */
  public static Run run(
      StackContext stack, Path script, int clients, int seconds, List<String> extraOptions)
      throws IOException, InterruptedException {
    URI uri = URI.create(stack.jdbcUrl().substring("jdbc:".length()));
    List<String> command = new ArrayList<>();
    command.add(locate().toString());
    command.addAll(
        List.of(
            "-n",
            "-c",
            Integer.toString(clients),
            "-j",
            "2",
            "-T",
            Integer.toString(seconds),
            "-f",
            script.toString()));
    command.addAll(extraOptions);
    command.addAll(
        List.of(
            "-h",
            uri.getHost(),
            "-p",
            Integer.toString(uri.getPort()),
            "-U",
            stack.user(),
            uri.getPath().substring(1)));
    Path output = Files.createTempFile("pgbench", ".out");
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().put("PGPASSWORD", stack.password() == null ? "" : stack.password());
      builder.redirectErrorStream(true).redirectOutput(output.toFile());
      ProcessStats.Finished usage =
          ProcessStats.watch(builder.start(), Duration.ofSeconds(seconds + 120L));
      String text = Files.readString(output, StandardCharsets.UTF_8);
      if (usage.exitCode() != 0) {
        throw new IllegalStateException(
            "pgbench exited with " + usage.exitCode() + " (" + command + "):\n" + text);
      }
      return new Run(tps(text), transactions(text), text, usage);
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** The rate of pgbench's report ({@code tps = 1234.5 (without initial connection time)}). */
  static double tps(String output) {
    Matcher tps = TPS.matcher(output);
    if (!tps.find()) {
      throw new IllegalStateException("pgbench printed no tps:\n" + output);
    }
    return Double.parseDouble(tps.group(1));
  }

  private static long transactions(String output) {
    Matcher count = TRANSACTIONS.matcher(output);
    return count.find() ? Long.parseLong(count.group(1)) : 0;
  }

  /**
   * A JDBC statement as pgbench runs it: each {@code ?} placeholder, in order, replaced by one of
   * {@code expressions} (SQL, which may use pgbench's {@code :variables}), so the peer runs the
   * very SQL text the code does.
   *
   * @throws IllegalArgumentException the counts of placeholders and expressions differ
   */
  public static String fill(String jdbcSql, List<String> expressions) {
    StringBuilder sql = new StringBuilder();
    int next = 0;
    for (int i = 0; i < jdbcSql.length(); i++) {
      char c = jdbcSql.charAt(i);
      if (c != '?') {
        sql.append(c);
      } else if (next < expressions.size()) {
        sql.append(expressions.get(next++));
      } else {
        next++;
      }
    }
    if (next != expressions.size()) {
      throw new IllegalArgumentException(
          "the statement has "
              + next
              + " placeholders and "
              + expressions.size()
              + " expressions were given: "
              + jdbcSql.strip());
    }
    return sql.toString();
  }
}
