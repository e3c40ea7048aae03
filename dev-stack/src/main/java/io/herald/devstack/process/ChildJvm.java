package io.herald.devstack.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Herald process (or any {@code main} class) in a child JVM, the one launcher the demo, the
 * integration tests and the benchmarks share: so a test can stop a process the way production does
 * (SIGTERM), kill it (SIGKILL) or freeze it (SIGSTOP).
 *
 * <pre>{@code
 * try (ChildJvm relay =
 *     ChildJvm.builder("relay", "io.herald.relay.RelayMain")
 *         .jvmOptions(List.of("-Xmx512m"))
 *         .logbackConfig(ShippedConfig.of("relay").logbackFile())
 *         .args(properties.toString())
 *         .logFile(dir.resolve("relay.log"))
 *         .start()) {
 *   relay.awaitHealthy(URI.create("http://127.0.0.1:" + port + "/health"), Duration.ofMinutes(1));
 *   ...
 * }
 * }</pre>
 *
 * <p>The command is {@code <this JVM's java> -Djava.io.tmpdir=<log's directory>/tmp <jvm options>
 * <test options> [-Dlogback.configurationFile=<file>] -cp <class path> [ExitWithParent] <main
 * class> <args>}; the class path defaults to this JVM's, with every entry made absolute. Standard
 * output and error go to the log file. Thread-safe; {@link #close()} stops the process with SIGTERM
 * and kills it if it is still running after its grace ({@link Builder#grace}, {@link
 * #DEFAULT_GRACE} unless set).
 *
 * <p>A child does not outlive this JVM: when it exits (normally, or on SIGTERM or SIGINT) while
 * children still run, a shutdown hook stops them as {@link #closeAll(List)} does, each within its
 * grace (a launcher's own hook closing them meanwhile is given no shorter one), and no child starts
 * once the exit has begun. Without it, a benchmark stopped with SIGTERM left its relay and consumer
 * running until someone killed them. A JVM that is itself killed (SIGKILL) runs no hook: its
 * children then stop themselves, each through {@link ExitWithParent}, which the command puts in
 * front of the main class whenever the child's class path holds it (the default class path does).
 */
public final class ChildJvm implements AutoCloseable {

  /** How long a child is given to stop unless its {@link Builder#grace} says otherwise. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

  /**
   * The system property that tells a child's {@link ExitWithParent} its grace, in milliseconds; set
   * on the command of every child that runs it.
   */
  static final String GRACE_PROPERTY = "herald.child-jvm.grace-ms";

  private static final Duration POLL = Duration.ofMillis(250);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final String name;
  private final Process process;
  private final Path log;
  private final Duration grace;

  private ChildJvm(String name, Process process, Path log, Duration grace) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.grace = grace;
  }

  /**
   * The children still running, and whether this JVM's exit has begun: a child is started and
   * added, and the exit's list of children taken, under one lock, so none starts unseen by the
   * hook.
   */
  private static final class Running {

    private static final Object LOCK = new Object();
    private static final Set<ChildJvm> CHILDREN = ConcurrentHashMap.newKeySet();
    private static boolean exiting;

    static {
      try {
        Runtime.getRuntime()
            .addShutdownHook(new Thread(Running::stopAtExit, "child-jvm-stop-at-exit"));
      } catch (IllegalStateException alreadyExiting) {
        exiting = true;
      }
    }

    private Running() {}

    /** Starts {@code builder}'s process and tracks it until it exits. */
    static ChildJvm start(String name, ProcessBuilder builder, Path log, Duration grace)
        throws IOException {
      synchronized (LOCK) {
        if (exiting) {
          throw new IllegalStateException("this JVM is exiting: child " + name + " not started");
        }
        ChildJvm child = new ChildJvm(name, builder.start(), log, grace);
        CHILDREN.add(child);
        child.process.onExit().thenRun(() -> CHILDREN.remove(child));
        return child;
      }
    }

    private static void stopAtExit() {
      List<ChildJvm> running;
      synchronized (LOCK) {
        exiting = true;
        running = List.copyOf(CHILDREN);
      }
      stopTogether(running);
    }
  }

  /** A launcher of {@code mainClass}; {@code name} names the process in messages. */
  public static Builder builder(String name, String mainClass) {
    return new Builder(name, mainClass);
  }

  /**
   * The system property a test run sets to options every child JVM gets after its own: the build's
   * integration tests cap the JIT at C1 ({@code -XX:TieredStopAtLevel=1}), because the suite's
   * hundreds of short-lived relays, consumers, writers and brokers spent much of their CPU in C2
   * compiling code they then hardly ran (BENCHMARKS.md, "Dev stack and test suite"). Unset (the
   * demo, the benchmarks), children run as launched.
   */
  public static final String TEST_OPTIONS_PROPERTY = "herald.child-jvm.options";

  /** The options of {@link #TEST_OPTIONS_PROPERTY}, split at white space; none when unset. */
  public static List<String> testOptions() {
    String options = System.getProperty(TEST_OPTIONS_PROPERTY, "").strip();
    return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
  }

  /**
   * Where this JVM loaded {@link ExitWithParent} from (its class directory or jar), found once;
   * empty when not from a file, so no child could load it either.
   */
  private static final Optional<Path> EXIT_WITH_PARENT = exitWithParentLocation();

  private static Optional<Path> exitWithParentLocation() {
    try {
      return Optional.of(
          Path.of(ExitWithParent.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .toAbsolutePath()
              .normalize());
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether {@code classPath} holds the {@link ExitWithParent} this JVM runs: its class directory
   * or jar, or the module's jar packaged beside its {@code target/classes} ({@link #jarsOnly}).
   */
  static boolean holdsExitWithParent(String classPath) {
    if (EXIT_WITH_PARENT.isEmpty()) {
      return false;
    }
    Path location = EXIT_WITH_PARENT.get();
    Optional<Path> packaged =
        location.endsWith(Path.of("target", "classes")) ? packagedJar(location) : Optional.empty();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry).toAbsolutePath().normalize();
      if (path.equals(location) || packaged.filter(path::equals).isPresent()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The module's own jar packaged beside its {@code classes} directory ({@code target/}), not its
   * tests, sources or javadoc jar; empty when none is packaged.
   */
  static Optional<Path> packagedJar(Path classes) {
    try (var files = Files.list(classes.getParent())) {
      return files
          .filter(
              f -> {
                String name = f.getFileName().toString();
                return name.endsWith(".jar")
                    && !name.endsWith("-tests.jar")
                    && !name.endsWith("-sources.jar")
                    && !name.endsWith("-javadoc.jar");
              })
          .map(f -> f.toAbsolutePath().normalize())
          .findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + classes.getParent(), e);
    }
  }

  /** This JVM's class path, every entry absolute (a child may run in another directory). */
  public static String currentClassPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !entry.isBlank())
        .map(entry -> Path.of(entry).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /**
   * {@code classPath} as jars only, which a JDK AOT cache requires ({@code -XX:AOTCache*}): a
   * module's {@code target/classes} becomes the jar packaged beside it; other directories (test
   * classes) are left out.
   *
   * @throws IllegalStateException if a {@code target/classes} directory has no jar beside it
   */
  public static String jarsOnly(String classPath) {
    List<String> jars = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (!Files.isDirectory(path)) {
        jars.add(entry);
      } else if (path.endsWith(Path.of("target", "classes"))) {
        jars.add(
            packagedJar(path)
                .orElseThrow(
                    () -> new IllegalStateException("no jar beside " + path + "; run package"))
                .toString());
      }
    }
    return String.join(File.pathSeparator, jars);
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Throws {@link Exited} if the child has exited: for callers that wait on its work and would
   * otherwise wait out their timeout for a process that can no longer do it.
   */
  public void requireAlive() {
    if (!process.isAlive()) {
      throw new Exited(this, process.exitValue());
    }
  }

  /** A child found exited where it should run: its name, exit code and the end of its log. */
  public static final class Exited extends IllegalStateException {

    private static final int LOG_LINES_SHOWN = 15;

    private Exited(ChildJvm child, int exitCode) {
      super(
          child
              + " has exited with code "
              + exitCode
              + "; the last lines of its log:\n"
              + lastLines(child.logText()).indent(4).stripTrailing());
    }

    private static String lastLines(String text) {
      List<String> lines = text.strip().lines().toList();
      return String.join(
          "\n", lines.subList(Math.max(0, lines.size() - LOG_LINES_SHOWN), lines.size()));
    }
  }

  /** The file the child's standard output and error go to. */
  public Path logFile() {
    return log;
  }

  /** The child's output so far, or a note saying why it cannot be read. */
  public String logText() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e + ")";
    }
  }

  /**
   * Polls {@code health} until it answers 200.
   *
   * @throws Exited if the child exits first
   * @throws IllegalStateException if it is not healthy within {@code timeout}; the message names
   *     the last answer and the log file
   */
  public void awaitHealthy(URI health, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String lastAnswer = "no answer";
    while (System.nanoTime() < deadline) {
      requireAlive();
      try {
        HttpResponse<String> response =
            HTTP.send(
                HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        lastAnswer = response.statusCode() + " " + response.body();
      } catch (IOException e) {
        lastAnswer = e.toString();
      }
      // A child's health endpoint has nothing to wait on but time.
      Thread.sleep(POLL.toMillis());
    }
    throw new IllegalStateException(
        name
            + " was not healthy at "
            + health
            + " within "
            + timeout
            + " (last answer: "
            + lastAnswer
            + "); see "
            + log);
  }

  /** Waits for the child to exit on its own; its exit code, or empty on timeout. */
  public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
        ? OptionalInt.of(process.exitValue())
        : OptionalInt.empty();
  }

  /** SIGKILL, then waits up to 30 s for the exit: no shutdown hook runs. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /**
   * SIGTERM, then SIGKILL if the child still runs after {@code grace}; returns the exit code of a
   * child that stopped within the grace, or empty if it had to be killed.
   */
  public OptionalInt stop(Duration grace) throws InterruptedException {
    if (!process.isAlive()) {
      return OptionalInt.of(process.exitValue());
    }
    process.destroy();
    if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      return OptionalInt.of(process.exitValue());
    }
    kill();
    return OptionalInt.empty();
  }

  /**
   * Closes every child, stopping them together: each gets its SIGTERM before the first is waited
   * for, so the grace periods overlap instead of adding up (a pipeline of three took about 1.5 s
   * one after the other).
   */
  public static void closeAll(List<ChildJvm> children) {
    stopTogether(children);
  }

  /**
   * SIGTERM to every child first, then waits for each until its grace has passed since the signals,
   * killing those still running then.
   */
  private static void stopTogether(List<ChildJvm> children) {
    for (ChildJvm child : children) {
      if (child.process.isAlive()) {
        child.process.destroy();
      }
    }
    long signalled = System.nanoTime();
    for (ChildJvm child : children) {
      try {
        long deadline = signalled + child.grace.toNanos();
        child.stop(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        child.process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Sends {@code kill -<signal>} ({@code STOP}, {@code CONT}, ...) to the child. */
  public void signal(String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (kill.waitFor() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + process.pid() + " (" + name + ") failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kill -" + signal + " " + process.pid() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + name, e);
    }
  }

  /** {@link #stop(Duration)} with the child's grace; interrupted, it kills at once. */
  @Override
  public void close() {
    try {
      stop(grace);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ", log " + log + ")";
  }

  /** Collects the command line and environment of a child; not thread-safe. */
  public static final class Builder {

    private final String name;
    private final String mainClass;
    private List<String> jvmOptions = List.of();
    private Path logbackConfig;
    private String classPath;
    private List<String> args = List.of();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Path logFile;
    private boolean appendLog;
    private Duration grace = DEFAULT_GRACE;

    private Builder(String name, String mainClass) {
      this.name = Objects.requireNonNull(name, "name");
      this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
    }

    public Builder jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(options);
      return this;
    }

    /** The child's logging config, passed as {@code -Dlogback.configurationFile}. */
    public Builder logbackConfig(Path file) {
      this.logbackConfig = Objects.requireNonNull(file, "file");
      return this;
    }

    /** Replaces the default class path ({@link #currentClassPath()}). */
    public Builder classPath(String classPath) {
      this.classPath = Objects.requireNonNull(classPath, "classPath");
      return this;
    }

    public Builder args(String... args) {
      this.args = List.of(args);
      return this;
    }

    /**
     * How long the child is given to stop: after {@link ChildJvm#close()}'s SIGTERM before SIGKILL,
     * and, through {@link ExitWithParent}, after its launcher died before it halts itself. {@link
     * #DEFAULT_GRACE} unless set.
     */
    public Builder grace(Duration grace) {
      if (grace.isNegative() || grace.isZero()) {
        throw new IllegalArgumentException("a child's grace must be positive: " + grace);
      }
      this.grace = grace;
      return this;
    }

    /** Variables added to the environment the child inherits. */
    public Builder env(Map<String, String> variables) {
      env.putAll(variables);
      return this;
    }

    /** Where output goes; required. The file is replaced unless {@link #appendLog()} is set. */
    public Builder logFile(Path file) {
      this.logFile = Objects.requireNonNull(file, "file");
      return this;
    }

    /** Appends to an existing log file instead of replacing it. */
    public Builder appendLog() {
      this.appendLog = true;
      return this;
    }

    /** The command line {@link #start()} runs. */
    public List<String> command() {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      if (logFile != null) {
        // First, so the child's own options may name another.
        command.add("-Djava.io.tmpdir=" + tempDir());
      }
      command.addAll(jvmOptions);
      command.addAll(testOptions());
      if (logbackConfig != null) {
        command.add("-Dlogback.configurationFile=" + logbackConfig.toAbsolutePath());
      }
      String path = classPath != null ? classPath : currentClassPath();
      command.add("-cp");
      command.add(path);
      if (holdsExitWithParent(path)) {
        command.add(command.indexOf("-cp"), "-D" + GRACE_PROPERTY + "=" + grace.toMillis());
        command.add(ExitWithParent.class.getName());
      }
      command.add(mainClass);
      command.addAll(args);
      return command;
    }

    /**
     * The child's {@code java.io.tmpdir}: {@code tmp} beside its log, so what a killed child leaves
     * there stays in the build's directories. Kafka's LZ4 codec unpacks its native library into the
     * temp directory of every JVM that compresses or reads LZ4 (the broker, the relay, the
     * consumer) and removes it only at a normal exit: the suite's kill and halt tests left hundreds
     * of copies in {@code /tmp}.
     */
    private Path tempDir() {
      return logFile.toAbsolutePath().getParent().resolve("tmp");
    }

    /** Starts the child; it runs in this JVM's working directory. */
    public ChildJvm start() throws IOException {
      if (logFile == null) {
        throw new IllegalStateException("a log file is required for child " + name);
      }
      Files.createDirectories(tempDir());
      ProcessBuilder builder =
          new ProcessBuilder(command())
              .redirectErrorStream(true)
              .redirectOutput(
                  appendLog
                      ? ProcessBuilder.Redirect.appendTo(logFile.toFile())
                      : ProcessBuilder.Redirect.to(logFile.toFile()));
      builder.environment().putAll(env);
      return Running.start(name, builder, logFile, grace);
    }
  }
}
