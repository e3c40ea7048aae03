package io.herald.devstack.embedded;

import java.io.IOException;
import java.io.InputStream;

/**
 * Entry point of the child JVM that runs the embedded Kafka broker: formats the log directory on
 * first start, then runs {@code kafka.Kafka}.
 *
 * <p>Arguments: the path of {@code server.properties} and the cluster id. The child exits when its
 * standard input reaches end-of-file, which happens when the parent JVM dies, even by {@code kill
 * -9}; so a crashed test JVM never leaves a broker holding its port.
 */
public final class KafkaServerMain {

  private KafkaServerMain() {}

  public static void main(String[] args) {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: KafkaServerMain <server.properties> <cluster-id>");
    }
    String config = args[0];
    String clusterId = args[1];
    exitWhenParentDies(System.in);
    int formatted =
        kafka.tools.StorageTool.execute(
            new String[] {"format", "--ignore-formatted", "-t", clusterId, "-c", config},
            System.out);
    if (formatted != 0) {
      System.err.println("formatting the Kafka log directory failed with status " + formatted);
      System.exit(formatted);
    }
    kafka.Kafka.main(new String[] {config});
  }

  private static void exitWhenParentDies(InputStream parentPipe) {
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (parentPipe.read() != -1) {
                  // The parent never writes; reading only detects the pipe closing.
                }
                System.err.println("parent JVM gone (stdin closed): stopping the broker");
              } catch (IOException e) {
                System.err.println("reading the parent pipe failed, stopping the broker: " + e);
              }
              // Runs Kafka's shutdown hook, which stops the broker cleanly.
              System.exit(0);
            },
            "herald-parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }
}
