package io.herald.devstack.process;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.Arrays;

/**
 * The entry point {@link ChildJvm} gives a child in front of its own main class: runs that class's
 * {@code main} unchanged, and stops the JVM once the launcher is gone.
 *
 * <p>A child's standard input is a pipe from its launcher, which never writes to it; the kernel
 * closes it when the launcher exits however it exits, SIGKILL included, and reading it then ends.
 * The child then stops as a SIGTERM would stop it ({@link System#exit}, its shutdown hooks run) and
 * is halted if those hooks have not ended within the grace its launcher gave it ({@link
 * ChildJvm.Builder#grace}), as {@link ChildJvm#close()} would have killed it. A pipe closed by a
 * launcher that still runs (its {@link Process#destroy()} closes it after the signal) is left to
 * that signal. Without it, a launcher killed by SIGKILL (an IDE's stop button, the OOM killer, a CI
 * timeout) left its relay, consumer and writer running, holding their ports and slots. A launcher
 * that stops normally has stopped its children before its pipe closes.
 *
 * <p>Arguments: the main class, then its arguments. Nothing else in a Herald process reads standard
 * input; a main that did would find it taken.
 */
public final class ExitWithParent {

  private ExitWithParent() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: ExitWithParent <main class> [arguments...]");
    }
    MethodHandle main =
        MethodHandles.publicLookup()
            .findStatic(
                Class.forName(args[0]), "main", MethodType.methodType(void.class, String[].class));
    watch(System.in);
    main.invokeExact(Arrays.copyOfRange(args, 1, args.length));
  }

  /** How long an end of standard input may take to show as the launcher's death. */
  private static final Duration LAUNCHER_EXIT_WAIT = Duration.ofSeconds(5);

  /** Set once this JVM's shutdown has begun, whatever began it. */
  private static volatile boolean stopping;

  private static void watch(InputStream launcherPipe) {
    long launcher = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> stopping = true, "herald-exit-with-parent-stopping"));
    Thread watcher =
        new Thread(
            () -> {
              String why;
              try {
                while (launcherPipe.read() != -1) {
                  // The launcher never writes; reading only detects the pipe closing.
                }
                why = "standard input closed";
              } catch (IOException e) {
                why = "reading standard input failed: " + e;
              }
              if (launcherAlive(launcher)) {
                // Closed by a launcher stopping this JVM itself: Process.destroy() closes the pipe
                // right after its signal, whose own grace the launcher keeps.
                return;
              }
              System.err.println("The launcher is gone (" + why + "): stopping");
              Duration grace =
                  Duration.ofMillis(
                      Long.getLong(ChildJvm.GRACE_PROPERTY, ChildJvm.DEFAULT_GRACE.toMillis()));
              Thread halt =
                  new Thread(
                      () -> {
                        try {
                          Thread.sleep(grace.toMillis());
                        } catch (InterruptedException e) {
                          return; // the JVM is ending anyway
                        }
                        System.err.println("Still stopping after " + grace + ": halting");
                        Runtime.getRuntime().halt(137); // as a shell reports SIGKILL
                      },
                      "herald-exit-with-parent-halt");
              halt.setDaemon(true);
              halt.start();
              System.exit(143); // as a shell reports SIGTERM
            },
            "herald-exit-with-parent");
    watcher.setDaemon(true);
    watcher.start();
  }

  /**
   * Whether the launcher still runs after its pipe closed, or this JVM is stopping anyway. A killed
   * launcher's pipe closes a moment before this process is handed to another parent, so a launcher
   * that still runs is given {@link #LAUNCHER_EXIT_WAIT} to show it is gone.
   */
  private static boolean launcherAlive(long launcher) {
    long deadline = System.nanoTime() + LAUNCHER_EXIT_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (stopping) {
        return true;
      }
      long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
      boolean running = ProcessHandle.of(launcher).map(ProcessHandle::isAlive).orElse(false);
      if (parent != launcher || !running) {
        return false;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        return true; // the JVM is ending
      }
    }
    return true;
  }
}
