package io.herald.devstack.process;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * The child {@link ChildJvmTest} starts: {@code health <port>} serves {@code /health} until
 * SIGTERM, {@code ignore-term} blocks its shutdown so only SIGKILL ends it, {@code slow-term
 * <millis>} takes that long to shut down and prints when it began and ended, {@code exit <code>}
 * exits at once, {@code parent <log>} starts a {@code slow-term 100} child of its own logging to
 * {@code <log>}, prints its pid and waits. It prints its logging property and {@code
 * CHILD_GREETING} first.
 */
public final class ChildMain {

  private ChildMain() {}

  public static void main(String[] args) throws Exception {
    System.out.println("logback=" + System.getProperty("logback.configurationFile"));
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
        ChildJvm child =
            ChildJvm.builder("grandchild", ChildMain.class.getName())
                .jvmOptions(List.of("-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                .args("slow-term", "100")
                .logFile(Path.of(args[1]))
                .start();
        System.out.println("child-pid=" + child.pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }
}
