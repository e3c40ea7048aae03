package io.herald.demo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Prometheus's {@code promtool}, run as a process, where it is on the PATH. */
final class Promtool {

  /** Why a test that needs promtool is skipped where it is missing. */
  static final String MISSING =
      "promtool is not on the PATH: skipping (install Debian's 'prometheus' package, or run"
          + " .ci/run as root, to run this test)";

  private static final long TIMEOUT_SECONDS = 60;

  /** The exit code and the output (stdout and stderr, after the command line) of one run. */
  record Result(int exitCode, String output) {}

  private final Path executable;

  private Promtool(Path executable) {
    this.executable = executable;
  }

  /** promtool from the PATH, or empty where there is none. */
  static Optional<Promtool> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return Optional.of(new Promtool(candidate));
      }
    }
    return Optional.empty();
  }

  /** Runs {@code promtool args...} in {@code dir}, relative paths resolved there. */
  Result run(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(executable.toString());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    // promtool's output is a few lines; read it all, then wait for the exit.
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          String.join(" ", command) + " did not exit within " + TIMEOUT_SECONDS + "s: " + output);
    }
    return new Result(process.exitValue(), String.join(" ", command) + "\n" + output);
  }
}
