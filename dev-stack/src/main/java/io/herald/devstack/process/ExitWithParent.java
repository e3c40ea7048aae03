package io.herald.devstack.process;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * The entry point {@link ChildJvm} gives a child in front of its own main class: runs that class's
 * {@code main} unchanged, and stops the JVM once the launcher is gone.
 *
 * <p>A child's standard input is a pipe from its launcher, which never writes to it; the kernel
 * closes it when the launcher exits however it exits, SIGKILL included, and reading it then ends.
 * The child then stops as a SIGTERM would stop it ({@link System#exit}, its shutdown hooks run) and
 * is halted if those hooks have not ended within {@link ChildJvm#DEFAULT_GRACE}, as {@link
 * ChildJvm#close()} would have killed it. Without it, a launcher killed by SIGKILL (an IDE's stop
 * button, the OOM killer, a CI timeout) left its relay, consumer and writer running, holding their
 * ports and slots. A launcher that stops normally has stopped its children before its pipe closes.
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

  private static void watch(InputStream launcherPipe) {
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
              System.err.println("The launcher is gone (" + why + "): stopping");
              Thread halt =
                  new Thread(
                      () -> {
                        try {
                          Thread.sleep(ChildJvm.DEFAULT_GRACE.toMillis());
                        } catch (InterruptedException e) {
                          return; // the JVM is ending anyway
                        }
                        System.err.println(
                            "Still stopping after " + ChildJvm.DEFAULT_GRACE + ": halting");
                        Runtime.getRuntime().halt(137);
                      },
                      "herald-exit-with-parent-halt");
              halt.setDaemon(true);
              halt.start();
              System.exit(143);
            },
            "herald-exit-with-parent");
    watcher.setDaemon(true);
    watcher.start();
  }
}
