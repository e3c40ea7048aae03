package io.herald.cli;

import io.herald.devstack.ShippedConfig;
import io.herald.devstack.process.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the herald command as an operator does: a separate OS process (the command line {@link
 * ChildJvm} builds, on this JVM's class path, with the shipped CLI logging file), standard output
 * and error apart so that {@code --json} output can be parsed. No {@code HERALD_*} variable of this
 * JVM reaches the child; a test passes the ones it means.
 */
public final class HeraldProcess {

  /** What one run printed and how it exited. */
  public record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final Path DIR = Path.of("target", "cli-it");

  private HeraldProcess() {}

  public static Result run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command =
        ChildJvm.builder("herald", Herald.class.getName())
            .jvmOptions(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"))
            .logbackConfig(ShippedConfig.of("cli").logbackFile())
            .args(args)
            .command();
    int n = RUNS.incrementAndGet();
    Files.createDirectories(DIR);
    Path out = DIR.resolve("run-" + n + ".out");
    Path err = DIR.resolve("run-" + n + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("HERALD_"));
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "herald " + String.join(" ", args) + " did not exit; see " + out);
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  public static Result run(String... args) throws IOException, InterruptedException {
    return run(Map.of(), args);
  }
}
