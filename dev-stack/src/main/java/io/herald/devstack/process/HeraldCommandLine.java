package io.herald.devstack.process;

import io.herald.devstack.ShippedConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the {@code herald} command as an operator does: a separate OS process (the command line
 * {@link ChildJvm} builds, on this JVM's class path, which must hold the cli module, with the
 * shipped CLI logging file), standard output and error apart so that {@code --json} output can be
 * parsed. No {@code HERALD_*} variable of this JVM reaches the child; the caller passes the ones it
 * means. Used by the cli module's tests and by the demo. Thread-safe.
 */
public final class HeraldCommandLine {

  /** What one run printed and how it exited. */
  public record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** The command's main class (named, not referenced: dev-stack does not depend on the cli). */
  public static final String MAIN_CLASS = "io.herald.cli.Herald";

  private static final AtomicInteger RUNS = new AtomicInteger();

  private final Path outputDir;
  private final Duration timeout;

  /**
   * @param outputDir where each run's standard output and error are kept ({@code run-N.out/err})
   * @param timeout how long one run may take before it is killed and reported
   */
  public HeraldCommandLine(Path outputDir, Duration timeout) {
    this.outputDir = outputDir;
    this.timeout = timeout;
  }

  public Result run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command =
        ChildJvm.builder("herald", MAIN_CLASS)
            .jvmOptions(
                List.of(
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED"))
            .logbackConfig(ShippedConfig.of("cli").logbackFile())
            .args(args)
            .command();
    int n = RUNS.incrementAndGet();
    Files.createDirectories(outputDir);
    Path out = outputDir.resolve("run-" + n + ".out");
    Path err = outputDir.resolve("run-" + n + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("HERALD_"));
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "herald " + String.join(" ", args) + " did not exit within " + timeout + "; see " + out);
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
