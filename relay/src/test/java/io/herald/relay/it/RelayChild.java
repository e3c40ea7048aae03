package io.herald.relay.it;

import io.herald.relay.RelayJvmOptions;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A relay running as a child JVM ({@code io.herald.relay.RelayMain} with a generated properties
 * file), so tests can kill it for real: {@link #kill()} is SIGKILL, {@link #terminate()} SIGTERM.
 * Its output goes to a log file under {@code target/}.
 */
final class RelayChild implements AutoCloseable {

  private final Process process;
  private final Path log;

  private RelayChild(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Test JVM options: small heap, quick start (C1 only) on the busy CI box. */
  static final List<String> TEST_JVM =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** The JVM options recommended for production ({@link RelayJvmOptions}). */
  static final List<String> PRODUCTION_JVM = RelayJvmOptions.recommended();

  static RelayChild start(Path properties, Path log) throws IOException {
    return start(properties, log, TEST_JVM);
  }

  static RelayChild start(Path properties, Path log, List<String> jvmOptions) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(
        jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:AOTCache"))
            ? jarClassPath()
            : classPath());
    command.add("io.herald.relay.RelayMain");
    command.add(properties.toString());
    Files.createDirectories(log.getParent());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    return new RelayChild(process, log);
  }

  private static String classPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(entry -> Paths.get(entry).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /**
   * The class path as jars only, which a JDK AOT cache requires ({@code -XX:AOTCache*}): a module's
   * {@code target/classes} becomes the jar packaged beside it; test classes are left out.
   */
  private static String jarClassPath() {
    List<String> jars = new ArrayList<>();
    for (String entry : classPath().split(File.pathSeparator)) {
      Path path = Paths.get(entry);
      if (!Files.isDirectory(path)) {
        jars.add(entry);
      } else if (path.endsWith(Paths.get("target", "classes"))) {
        try (var packaged = Files.list(path.getParent())) {
          jars.add(
              packaged
                  .filter(f -> f.getFileName().toString().endsWith(".jar"))
                  .findFirst()
                  .orElseThrow(() -> new IllegalStateException("no jar beside " + path))
                  .toString());
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
    return String.join(File.pathSeparator, jars);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook runs, no offset is flushed. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then waits for the process to exit; returns its exit code. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError("relay did not stop within 90 s of SIGTERM; log: " + log);
    }
    return process.exitValue();
  }

  /** Waits for the process to exit on its own; returns the exit code or -1 on timeout. */
  int awaitExit(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  Path logFile() {
    return log;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
