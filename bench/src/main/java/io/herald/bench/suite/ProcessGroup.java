package io.herald.bench.suite;

import io.herald.devstack.StackContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The processes a scenario reads CPU and memory of, by name: its own (the benchmark JVM, a relay
 * child) and the stack's (PostgreSQL's postmaster with its backends, the Kafka broker's JVM). Not
 * thread-safe; one per scenario run.
 */
public final class ProcessGroup {

  private final Map<String, Long> pids = new LinkedHashMap<>();
  private final Map<String, Boolean> withDescendants = new HashMap<>();

  /** Adds {@code pid} as {@code name}; with its live descendants' CPU when asked. */
  public ProcessGroup add(String name, long pid, boolean descendants) {
    pids.put(name, pid);
    withDescendants.put(name, descendants);
    return this;
  }

  /** Adds {@code postgres} (the postmaster and its backends) and {@code kafka} when found. */
  public ProcessGroup addStack(StackContext stack) {
    add("postgres", postmaster(stack), true);
    kafka().ifPresent(pid -> add("kafka", pid, false));
    return this;
  }

  public List<String> names() {
    return List.copyOf(pids.keySet());
  }

  /** One reading of every process; one that has gone is an error. */
  public Map<String, ProcessStats.Sample> sample() {
    Map<String, ProcessStats.Sample> samples = new LinkedHashMap<>();
    pids.forEach(
        (name, pid) ->
            samples.put(
                name,
                ProcessStats.sample(pid, withDescendants.get(name))
                    .orElseThrow(
                        () -> new IllegalStateException(name + " (" + pid + ") is gone"))));
    return samples;
  }

  /** Each process's CPU seconds per 1,000 events between two readings. */
  public static Map<String, Double> cpuSecondsPer1000(
      Map<String, ProcessStats.Sample> before,
      Map<String, ProcessStats.Sample> after,
      long events) {
    return per1000(before, after, events, ProcessStats.Sample::cpuSeconds);
  }

  /**
   * The part of {@link #cpuSecondsPer1000} each process's JIT compiler threads used; never below 0:
   * a compiler thread the JVM retires between the readings takes its time out of the second.
   */
  public static Map<String, Double> jitSecondsPer1000(
      Map<String, ProcessStats.Sample> before,
      Map<String, ProcessStats.Sample> after,
      long events) {
    Map<String, Double> perThousand =
        per1000(before, after, events, ProcessStats.Sample::jitCpuSeconds);
    perThousand.replaceAll((name, seconds) -> Math.max(0, seconds));
    return perThousand;
  }

  private static Map<String, Double> per1000(
      Map<String, ProcessStats.Sample> before,
      Map<String, ProcessStats.Sample> after,
      long events,
      ToDoubleFunction<ProcessStats.Sample> seconds) {
    Map<String, Double> perThousand = new LinkedHashMap<>();
    before.forEach(
        (name, sample) ->
            perThousand.put(
                name,
                (seconds.applyAsDouble(after.get(name)) - seconds.applyAsDouble(sample))
                    * 1000
                    / Math.max(1, events)));
    return perThousand;
  }

  /** {@code "name 0.42, name 0.13"}: CPU seconds per 1,000 events, for tables and notes. */
  public static String describeCpu(Map<String, Double> cpuSecondsPer1000) {
    StringBuilder text = new StringBuilder();
    cpuSecondsPer1000.forEach(
        (name, seconds) ->
            text.append(text.isEmpty() ? "" : ", ")
                .append(String.format(Locale.ROOT, "%s %.2f", name, seconds)));
    return text.toString();
  }

  /** {@code "name 123 MiB, ..."}: each process's peak RSS ({@code VmHWM}). */
  public static String describePeakRss(Map<String, ProcessStats.Sample> samples) {
    StringBuilder text = new StringBuilder();
    samples.forEach(
        (name, sample) ->
            text.append(text.isEmpty() ? "" : ", ")
                .append(name)
                .append(' ')
                .append(sample.peakRssBytes() >> 20)
                .append(" MiB"));
    return text.toString();
  }

  /** The postmaster: the parent of any backend. */
  public static long postmaster(StackContext stack) {
    try (Connection connection = stack.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
      row.next();
      long backend = row.getLong(1);
      return ProcessStats.parent(backend)
          .orElseThrow(() -> new IllegalStateException("no /proc entry for backend " + backend));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot find the postmaster of " + stack.database(), e);
    }
  }

  /** The embedded Kafka broker: the child JVM of this one that runs {@code KafkaServerMain}. */
  public static Optional<Long> kafka() {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> ProcessStats.commandLine(p.pid()).orElse("").contains("KafkaServerMain"))
        .findFirst()
        .map(ProcessHandle::pid);
  }
}
