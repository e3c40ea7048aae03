package io.herald.devstack.process;

import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The child {@link ChildJvmTest} starts: {@code health <port>} serves {@code /health} until
 * SIGTERM, {@code ignore-term} blocks its shutdown so only SIGKILL ends it, {@code slow-term
 * <millis>} takes that long to shut down and prints when it began and ended, {@code exit <code>}
 * exits at once, {@code parent <log> [mode args...]} starts a child of its own in that mode ({@code
 * slow-term 100} if none is given) logging to {@code <log>}, prints its pid and waits; {@code
 * late-start <log>} starts that child too and returns once it is ready, and its shutdown hook, once
 * this JVM's exit has sent the child SIGTERM, tries to start another ({@code <log>.late}) and
 * prints its pid or why it was refused. It prints its logging property and {@code CHILD_GREETING}
 * first.
 */
public final class ChildMain {

  /** The JVM options of every test child: small and quick to start. */
  static final List<String> SMALL_JVM =
      List.of("-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** The grace of a {@code parent}'s child: short, so a test of its halt does not wait 30 s. */
  static final Duration GRANDCHILD_GRACE = Duration.ofSeconds(3);

  private ChildMain() {}

  public static void main(String[] args) throws Exception {
    System.out.println("logback=" + System.getProperty("logback.configurationFile"));
    System.out.println("tmpdir=" + System.getProperty("java.io.tmpdir"));
    System.out.println("greeting=" + System.getenv("CHILD_GREETING"));
    switch (args[0]) {
      case "health" -> {
        HttpServer server =
            HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])), 0);
        server.createContext(
            "/health",
            exchange -> {
              exchange.sendResponseHeaders(200, -1);
              exchange.close();
            });
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("stopping")));
      }
      case "ignore-term" -> {
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        Thread.sleep(Long.MAX_VALUE);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
      case "slow-term" -> {
        long millis = Long.parseLong(args[1]);
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      System.out.println("term-at=" + System.currentTimeMillis());
                      try {
                        Thread.sleep(millis);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      System.out.println("exit-at=" + System.currentTimeMillis());
                      System.out.flush();
                    }));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
      case "exit" -> System.exit(Integer.parseInt(args[1]));
      case "parent" -> {
        Path log = Path.of(args[1]);
        ChildJvm child =
            args.length > 2
                ? grandchild(log, Arrays.copyOfRange(args, 2, args.length))
                : grandchild(log);
        System.out.println("child-pid=" + child.pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
      case "late-start" -> {
        Path log = Path.of(args[1]);
        grandchild(log);
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        // The exit's own hook has taken its list of children and begun stopping.
                        await()
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(10))
                            .until(() -> Files.readString(log).contains("term-at="));
                        ChildJvm late = grandchild(Path.of(log + ".late"));
                        System.out.println("late-pid=" + late.pid());
                        System.out.flush();
                        // Started against the rule (the test fails): not left behind all the same.
                        late.close();
                      } catch (IllegalStateException e) {
                        System.out.println("late-refused=" + e.getMessage());
                      } catch (IOException e) {
                        throw new UncheckedIOException(e);
                      }
                      System.out.flush();
                    }));
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> Files.exists(log) && Files.readString(log).contains("ready"));
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  /** A {@code slow-term 100} child of this JVM, logging to {@code log}. */
  private static ChildJvm grandchild(Path log) throws IOException {
    return grandchild(log, "slow-term", "100");
  }

  /** A child of this JVM in {@code mode} (its arguments), logging to {@code log}. */
  private static ChildJvm grandchild(Path log, String... mode) throws IOException {
    return ChildJvm.builder("grandchild", ChildMain.class.getName())
        .jvmOptions(SMALL_JVM)
        .grace(GRANDCHILD_GRACE)
        .args(mode)
        .logFile(log)
        .start();
  }
}
