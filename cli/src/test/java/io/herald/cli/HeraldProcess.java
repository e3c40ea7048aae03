package io.herald.cli;

import io.herald.devstack.process.HeraldCommandLine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Runs the herald command as an operator does, a separate OS process ({@link HeraldCommandLine}),
 * keeping each run's output under {@code target/cli-it}.
 */
public final class HeraldProcess {

  /** What one run printed and how it exited. */
  public record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private static final HeraldCommandLine COMMAND =
      new HeraldCommandLine(Path.of("target", "cli-it"), Duration.ofMinutes(2));

  private HeraldProcess() {}

  public static Result run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    HeraldCommandLine.Result result = COMMAND.run(env, args);
    return new Result(result.exitCode(), result.out(), result.err());
  }

  public static Result run(String... args) throws IOException, InterruptedException {
    return run(Map.of(), args);
  }
}
