package io.herald.bench.relay;

import io.herald.bench.suite.ProcessStats;
import io.herald.devstack.process.ChildJvm;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The server's own limit for a relay drain (B1): a pgjdbc logical replication stream ({@code
 * pgoutput}, {@code proto_version} 1) from its own slot that only counts the messages by their
 * first byte ({@code B}egin, {@code C}ommit, {@code I}nsert...), acknowledging what it has read as
 * it goes, until it has seen a given number of inserts and the commit that follows the last. What
 * it costs is what any pgoutput client must spend: the walsender's decoding and the bytes on the
 * wire, nothing of Debezium's parsing, routing or Kafka.
 *
 * <p>{@link #read} runs in the calling thread; {@link #main} runs it as a child JVM ({@link
 * #inChildJvm}) so its CPU and memory are a process's of their own, as the relay's and {@code
 * pg_recvlogical}'s are.
 */
public final class BareReader {

  /** The line the child prints its figures on, parsed by {@link #inChildJvm}. */
  private static final Pattern RESULT =
      Pattern.compile(
          "bare-reader: messages=(\\d+) begins=(\\d+) commits=(\\d+) inserts=(\\d+)"
              + " seconds=([0-9.]+) cpu=([0-9.]+) peak-rss=(\\d+)");

  /** pg_recvlogical's default: a status update every 10 s (and on the last commit). */
  private static final int STATUS_INTERVAL_SECONDS = 10;

  private BareReader() {}

  /**
   * Counts of one stream's messages by type. Not thread-safe: one reader's.
   *
   * <p>{@link #done} once {@code inserts} inserts have been seen and the message just counted is
   * the commit after the last of them: the backlog's last transaction is complete.
   */
  static final class Tally {
    private long messages;
    private long begins;
    private long commits;
    private long inserts;
    private byte last;

    void accept(byte type) {
      messages++;
      last = type;
      switch (type) {
        case 'B' -> begins++;
        case 'C' -> commits++;
        case 'I' -> inserts++;
        default -> {
          // Relation, type, update, delete, origin, truncate: counted as messages only.
        }
      }
    }

    boolean done(long insertsWanted) {
      return inserts >= insertsWanted && last == 'C';
    }

    Count count(double seconds) {
      return new Count(messages, begins, commits, inserts, seconds);
    }
  }

  /**
   * What a read saw.
   *
   * @param seconds from the first message to the last commit counted
   */
  public record Count(long messages, long begins, long commits, long inserts, double seconds) {}

  /**
   * What the child JVM saw and used.
   *
   * @param cpuSeconds the child's user + system time from its first message to its last
   * @param peakRssBytes the child's {@code VmHWM} at the end
   */
  public record ChildRun(Count count, double cpuSeconds, long peakRssBytes) {}

  /** Where to read: the database, a superuser's credentials, the slot and the publication. */
  public record Source(
      String jdbcUrl, String user, String password, String slot, String publication) {}

  /**
   * Reads {@code source}'s slot until {@code inserts} inserts and their transaction's commit have
   * come, acknowledging each commit's position as flushed.
   *
   * @param stall the longest the stream may send nothing (the server's keepalives count) before the
   *     read fails
   * @param onFirstMessage run once, when the first message arrives (the child samples its CPU)
   */
  public static Count read(Source source, long inserts, Duration stall, Runnable onFirstMessage)
      throws SQLException {
    Properties properties = new Properties();
    PGProperty.USER.set(properties, source.user());
    PGProperty.PASSWORD.set(properties, source.password());
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
    PGProperty.REPLICATION.set(properties, "database");
    PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
    PGProperty.SOCKET_TIMEOUT.set(properties, Long.toString(Math.max(1, stall.toSeconds())));
    try (Connection connection = DriverManager.getConnection(source.jdbcUrl(), properties);
        PGReplicationStream stream =
            connection
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName(source.slot())
                .withSlotOption("proto_version", 1)
                .withSlotOption("publication_names", source.publication())
                .withStatusInterval(STATUS_INTERVAL_SECONDS, TimeUnit.SECONDS)
                .start()) {
      Tally tally = new Tally();
      long first = 0;
      while (!tally.done(inserts)) {
        // Blocks on the socket; the socket timeout bounds a stream that has stopped.
        ByteBuffer message = stream.read();
        if (first == 0) {
          first = System.nanoTime();
          onFirstMessage.run();
        }
        byte type = message.get(message.position());
        tally.accept(type);
        if (type == 'C') {
          LogSequenceNumber received = stream.getLastReceiveLSN();
          stream.setAppliedLSN(received);
          stream.setFlushedLSN(received);
        }
      }
      long end = System.nanoTime();
      stream.forceUpdateStatus();
      return tally.count((end - first) / 1e9);
    }
  }

  /**
   * Runs {@link #read} in a child JVM ({@code jvmOptions}, output to {@code log}) and waits for it.
   *
   * @throws IllegalStateException if it fails, runs longer than {@code timeout} (it is killed) or
   *     prints no figures; the message names the log
   */
  public static ChildRun inChildJvm(
      Source source, long inserts, List<String> jvmOptions, Path log, Duration timeout)
      throws java.io.IOException, InterruptedException {
    try (ChildJvm child =
        ChildJvm.builder("bare-reader", BareReader.class.getName())
            .jvmOptions(jvmOptions)
            .env(Map.of("PGPASSWORD", source.password() == null ? "" : source.password()))
            .args(
                source.jdbcUrl(),
                source.user(),
                source.slot(),
                source.publication(),
                Long.toString(inserts),
                Long.toString(timeout.toSeconds()))
            .logFile(log)
            .start()) {
      OptionalInt exit = child.awaitExit(timeout);
      if (exit.isEmpty() || exit.getAsInt() != 0) {
        child.kill();
        throw new IllegalStateException(
            "bare reader "
                + (exit.isEmpty() ? "ran longer than " + timeout : "exited " + exit.getAsInt())
                + "; log "
                + log.toAbsolutePath()
                + ":\n"
                + child.logText());
      }
      return parse(child.logText())
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "bare reader printed no figures; log " + log.toAbsolutePath()));
    }
  }

  /** The figures of the child's result line, if it printed one. */
  static java.util.Optional<ChildRun> parse(String output) {
    Matcher m = RESULT.matcher(output);
    if (!m.find()) {
      return java.util.Optional.empty();
    }
    Count count =
        new Count(
            Long.parseLong(m.group(1)),
            Long.parseLong(m.group(2)),
            Long.parseLong(m.group(3)),
            Long.parseLong(m.group(4)),
            Double.parseDouble(m.group(5)));
    return java.util.Optional.of(
        new ChildRun(count, Double.parseDouble(m.group(6)), Long.parseLong(m.group(7))));
  }

  /**
   * The child: {@code jdbcUrl user slot publication inserts timeoutSeconds}, the password in {@code
   * PGPASSWORD}; prints one result line ({@link #RESULT}) and exits 0, or fails with the cause.
   */
  public static void main(String[] args) throws Exception {
    Source source = new Source(args[0], args[1], System.getenv("PGPASSWORD"), args[2], args[3]);
    long self = ProcessHandle.current().pid();
    double[] cpuAtFirst = new double[1];
    Count count =
        read(
            source,
            Long.parseLong(args[4]),
            Duration.ofSeconds(Long.parseLong(args[5])),
            () -> cpuAtFirst[0] = cpuSeconds(self));
    double cpu = cpuSeconds(self) - cpuAtFirst[0];
    long peak = ProcessStats.sample(self, false).orElseThrow().peakRssBytes();
    System.out.printf(
        Locale.ROOT,
        "bare-reader: messages=%d begins=%d commits=%d inserts=%d seconds=%.3f cpu=%.2f"
            + " peak-rss=%d%n",
        count.messages(),
        count.begins(),
        count.commits(),
        count.inserts(),
        count.seconds(),
        cpu,
        peak);
  }

  private static double cpuSeconds(long pid) {
    return ProcessStats.sample(pid, false).orElseThrow().cpuSeconds();
  }
}
