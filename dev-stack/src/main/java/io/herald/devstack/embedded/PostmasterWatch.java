package io.herald.devstack.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Stops a postmaster once the JVM that started it is gone, however that JVM ends.
 *
 * <p>{@code pg_ctl} detaches PostgreSQL from its caller, so a launcher killed with SIGKILL left its
 * server running, holding its port and data directory, until the next stack start found it (the
 * orphan check of {@link EmbeddedStack}). The watch is a shell whose standard input is a pipe from
 * this JVM: the kernel closes the pipe when this JVM exits, for whatever reason, and the shell then
 * sends the postmaster SIGINT, PostgreSQL's fast shutdown (its clients died with the JVM), provided
 * the data directory's {@code postmaster.pid} still names it (so a recycled pid is left alone). A
 * server stopped by this JVM closes its watch first.
 */
final class PostmasterWatch implements AutoCloseable {

  /** How long closing waits for the shell to end after SIGTERM. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  /**
   * Waits for end of input, then stops the postmaster {@code $2} if {@code $1/postmaster.pid} still
   * names it. The paths and pid are the shell's arguments, never part of its script.
   */
  private static final String SCRIPT =
      "read -r _ignored;"
          + " pid=$(head -n 1 \"$1/postmaster.pid\" 2>/dev/null) && [ \"$pid\" = \"$2\" ]"
          + " && echo \"herald: the JVM that started PostgreSQL is gone: stopping postmaster $2\" >&2"
          + " && kill -INT \"$2\"";

  private final long postmaster;
  private final Process shell;

  private PostmasterWatch(long postmaster, Process shell) {
    this.postmaster = postmaster;
    this.shell = shell;
  }

  /**
   * Watches the postmaster of {@code dataDirectory} (its {@code postmaster.pid}, which a started
   * server has written), the shell's messages appended to {@code log}.
   */
  static PostmasterWatch start(Path dataDirectory, Path log) {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    long postmaster =
        postmasterPid(pidFile)
            .orElseThrow(() -> new IllegalStateException(pidFile + " names no postmaster pid"));
    try {
      Process shell =
          new ProcessBuilder(
                  List.of(
                      "sh",
                      "-c",
                      SCRIPT,
                      "herald-postmaster-watch",
                      dataDirectory.toAbsolutePath().toString(),
                      Long.toString(postmaster)))
              .redirectInput(Redirect.PIPE)
              .redirectOutput(Redirect.DISCARD)
              .redirectError(Redirect.appendTo(log.toFile()))
              .start();
      return new PostmasterWatch(postmaster, shell);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "starting the watch of postmaster " + postmaster + " failed", e);
    }
  }

  /**
   * The pid on the first line of a data directory's {@code postmaster.pid}; empty when the file is
   * missing or names none.
   */
  static OptionalLong postmasterPid(Path pidFile) {
    if (!Files.isRegularFile(pidFile)) {
      return OptionalLong.empty();
    }
    try {
      List<String> lines = Files.readAllLines(pidFile);
      return lines.isEmpty() || !lines.get(0).strip().matches("\\d{1,18}")
          ? OptionalLong.empty()
          : OptionalLong.of(Long.parseLong(lines.get(0).strip()));
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + pidFile + " failed", e);
    }
  }

  long postmaster() {
    return postmaster;
  }

  long pid() {
    return shell.pid();
  }

  /**
   * Ends the watch without touching the postmaster: SIGTERM ends the shell inside its {@code read},
   * before it could signal anything.
   */
  @Override
  public void close() {
    shell.destroy();
    try {
      if (!shell.waitFor(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        shell.destroyForcibly();
      }
    } catch (InterruptedException e) {
      shell.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
