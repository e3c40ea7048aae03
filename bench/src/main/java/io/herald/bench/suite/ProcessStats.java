package io.herald.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * CPU time and memory of a process from {@code /proc} (Linux): what each benchmark prints per
 * process. CPU counts the process and, where asked, its children: PostgreSQL's work is done by its
 * backends, whose time moves into the postmaster's {@code cutime} when they exit.
 */
public final class ProcessStats {

  /** Clock ticks per second of {@code /proc/<pid>/stat}'s times ({@code getconf CLK_TCK}). */
  private static final long TICKS_PER_SECOND = ticksPerSecond();

  private static final Pattern COMPILER_THREAD = Pattern.compile("C[12] CompilerThre");

  private ProcessStats() {}

  /**
   * One reading of a process's CPU and memory.
   *
   * @param jitCpuSeconds the part of {@code cpuSeconds} its JIT compiler threads used (a JVM's
   *     {@code C1}/{@code C2 CompilerThread}s alive at the reading; 0 for other processes): while
   *     it grows the JVM is still warming up, and a phase's CPU without it is its warm cost
   */
  public record Sample(double cpuSeconds, double jitCpuSeconds, long rssBytes, long peakRssBytes) {}

  /**
   * The process's CPU seconds (user and system, reaped children included) and memory, plus the CPU
   * of its live descendants when {@code withDescendants} (each with what it has reaped of its own);
   * empty when it has gone.
   */
  public static Optional<Sample> sample(long pid, boolean withDescendants) {
    Optional<Double> cpu = withDescendants ? cpuSecondsWithDescendants(pid) : cpuSeconds(pid, true);
    return cpu.map(
        seconds ->
            new Sample(
                seconds,
                jitCpuSeconds(pid),
                statusBytes(pid, "VmRSS:"),
                statusBytes(pid, "VmHWM:")));
  }

  /** How often a reading is taken at most when a child was reaped while it was taken. */
  private static final int READ_ATTEMPTS = 20;

  /**
   * The process's CPU with its reaped children's and its live descendants' (each with what it has
   * reaped of its own). A child the process reaps while they are read would be counted twice or not
   * at all (its time moves into the process's reaped-children time, as PostgreSQL's backends' into
   * the postmaster's), and then land in the next reading; so the reading is taken again while that
   * time moved under it. (A deeper descendant reaped meanwhile can still be misplaced once.)
   */
  private static Optional<Double> cpuSecondsWithDescendants(long pid) {
    for (int attempt = 1; ; attempt++) {
      Optional<String[]> before = statFields(pid);
      if (before.isEmpty()) {
        return Optional.empty();
      }
      double descendants = 0;
      for (long child : descendants(pid)) {
        descendants += cpuSeconds(child, true).orElse(0.0);
      }
      Optional<String[]> after = statFields(pid);
      if (after.isEmpty()) {
        return Optional.empty();
      }
      if (reapedTicks(before.get()) == reapedTicks(after.get()) || attempt == READ_ATTEMPTS) {
        // Past the attempts (a group reaping continuously) one reaping may be misplaced.
        return Optional.of(ticksToSeconds(ownAndReapedTicks(after.get())) + descendants);
      }
    }
  }

  private static List<Long> descendants(long pid) {
    List<Long> descendants = new ArrayList<>();
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> descendants.add(d.pid())));
    return descendants;
  }

  /** One thread's CPU so far: its name as the kernel truncates it, and its user and system time. */
  public record ThreadCpu(String name, double cpuSeconds) {}

  /**
   * The process's live threads by thread id ({@code /proc/<pid>/task}); empty when it has gone. A
   * thread that ends while they are read is left out, its time with it.
   */
  public static Map<Long, ThreadCpu> threads(long pid) {
    Map<Long, ThreadCpu> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        read(task.resolve("stat"))
            .ifPresent(
                stat -> {
                  // The name may hold spaces and parentheses: it runs to the last ')'.
                  int close = stat.lastIndexOf(')');
                  String[] fields = stat.substring(close + 2).trim().split(" ");
                  threads.put(
                      Long.parseLong(task.getFileName().toString()),
                      new ThreadCpu(
                          stat.substring(stat.indexOf('(') + 1, close),
                          ticksToSeconds(Long.parseLong(fields[11]) + Long.parseLong(fields[12]))));
                });
      }
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException | DirectoryIteratorException e) {
      if (!Files.isDirectory(Path.of("/proc", Long.toString(pid)))) {
        return Map.of(); // Gone while its threads were listed.
      }
      throw new IllegalStateException("cannot list the threads of " + pid, e);
    }
    return threads;
  }

  /**
   * The CPU seconds of the process's JIT compiler threads (names {@code C1 CompilerThre} and {@code
   * C2 CompilerThre}, as the kernel truncates them). A compiler thread the JVM retired meanwhile
   * takes its time with it, so this can only understate.
   */
  static double jitCpuSeconds(long pid) {
    return threads(pid).values().stream()
        .filter(thread -> COMPILER_THREAD.matcher(thread.name()).lookingAt())
        .mapToDouble(ThreadCpu::cpuSeconds)
        .sum();
  }

  /**
   * The process's full command line, arguments separated by spaces; empty when it has gone. Read
   * here because {@code ProcessHandle.Info} gives up on command lines over 4 KiB, which every JVM
   * with the build's class path has.
   */
  public static Optional<String> commandLine(long pid) {
    return read(Path.of("/proc", Long.toString(pid), "cmdline")).map(raw -> raw.replace('\0', ' '));
  }

  /**
   * What a child process of this JVM used, from start to exit.
   *
   * @param cpuSeconds user and system time, taken from this JVM's reaped-children times, which the
   *     kernel adds the child's to when the JVM reaps it (exact, unlike a last sample before exit)
   * @param peakRssBytes the highest {@code VmHWM} sampled every 100 ms while it ran
   */
  public record Finished(int exitCode, double seconds, double cpuSeconds, long peakRssBytes) {}

  /**
   * Waits for {@code process}, a child of this JVM, to exit, sampling its memory meanwhile; kills
   * it and throws when it runs longer than {@code timeout}. Its CPU is right only if no other child
   * of this JVM exits meanwhile (the scenarios run one child at a time).
   */
  public static Finished watch(Process process, java.time.Duration timeout)
      throws InterruptedException {
    long self = ProcessHandle.current().pid();
    double reapedBefore = reapedChildrenCpuSeconds(self);
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long peak = 0;
    while (!process.waitFor(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
      peak = Math.max(peak, statusBytes(process.pid(), "VmHWM:"));
      if (System.nanoTime() > deadline) {
        process.destroyForcibly().waitFor();
        throw new IllegalStateException(
            "process " + process.pid() + " ran longer than " + timeout + "; killed");
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Finished(
        process.exitValue(), seconds, reapedChildrenCpuSeconds(self) - reapedBefore, peak);
  }

  /** The parent of {@code pid} ({@code /proc/<pid>/stat}'s fourth field). */
  public static Optional<Long> parent(long pid) {
    return statFields(pid).map(fields -> Long.parseLong(fields[1]));
  }

  private static Optional<Double> cpuSeconds(long pid, boolean withReapedChildren) {
    return statFields(pid)
        .map(
            fields ->
                ticksToSeconds(
                    withReapedChildren
                        ? ownAndReapedTicks(fields)
                        : Long.parseLong(fields[11]) + Long.parseLong(fields[12])));
  }

  // After "pid (comm)": [0]=state [1]=ppid ... [11]=utime [12]=stime [13]=cutime [14]=cstime.

  private static long ownAndReapedTicks(String[] fields) {
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + reapedTicks(fields);
  }

  private static long reapedTicks(String[] fields) {
    return Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
  }

  private static double ticksToSeconds(long ticks) {
    return ticks / (double) TICKS_PER_SECOND;
  }

  private static double reapedChildrenCpuSeconds(long pid) {
    return ticksToSeconds(
        reapedTicks(
            statFields(pid)
                .orElseThrow(() -> new IllegalStateException("no /proc entry for " + pid))));
  }

  private static Optional<String[]> statFields(long pid) {
    return statFields(Path.of("/proc", Long.toString(pid), "stat"));
  }

  /** The fields of a process's or thread's {@code stat} file; empty when it has gone. */
  private static Optional<String[]> statFields(Path statFile) {
    // The command name may hold spaces and parentheses; the fields start after the last ')'.
    return read(statFile).map(stat -> stat.substring(stat.lastIndexOf(')') + 2).trim().split(" "));
  }

  private static long statusBytes(long pid, String field) {
    Optional<String> status = read(Path.of("/proc", Long.toString(pid), "status"));
    for (String line : status.orElse("").split("\n")) {
      if (line.startsWith(field)) {
        // "VmRSS:    123456 kB"
        return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
      }
    }
    return 0;
  }

  /**
   * A file of a process's or thread's {@code /proc} directory; empty when the process or thread has
   * gone. It can go between the file's opening and its reading, which then fails with "No such
   * process" (ESRCH, no exception type of its own): a failure after which the directory is gone is
   * that, any other is thrown.
   */
  static Optional<String> read(Path procFile) {
    try {
      // Decoded leniently: a command line may hold any bytes.
      return Optional.of(new String(Files.readAllBytes(procFile), StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (!Files.isDirectory(procFile.getParent())) {
        return Optional.empty();
      }
      throw new IllegalStateException("cannot read " + procFile, e);
    }
  }

  private static long ticksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes()).trim();
      getconf.waitFor();
      return Long.parseLong(out);
    } catch (IOException | NumberFormatException e) {
      // Every Linux this runs on uses 100; getconf is only missing on stripped images.
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }
}
