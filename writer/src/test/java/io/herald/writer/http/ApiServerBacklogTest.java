package io.herald.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.process.ChildJvm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's listening socket queues, in the kernel, as many new connections as the writer may hold
 * requests: a burst of clients that each open a connection while the writer is busy must not have
 * its SYNs dropped at the JVM's default backlog of 50, each then retried by the client only after a
 * second (B5's one-second stalls). The server is frozen (SIGSTOP), so its acceptor takes nothing
 * and every connection stays in the kernel's queue.
 */
class ApiServerBacklogTest {

  private static final int CONCURRENT = 8;
  private static final int QUEUED = 100;

  @TempDir Path dir;

  @Test
  void shouldLetTheKernelQueueAsManyConnectionsAsTheWriterMayHoldRequests() throws Exception {
    try (ChildJvm server =
        ChildJvm.builder("api-server", ApiServerChild.class.getName())
            .jvmOptions(List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
            .args(Integer.toString(CONCURRENT), Integer.toString(QUEUED))
            .logFile(dir.resolve("api-server.log"))
            .start()) {
      await().atMost(Duration.ofMinutes(1)).until(() -> server.logText().contains("port="));
      int port = port(server.logText());
      server.signal("STOP");
      int queued;
      try {
        queued = connectUntilRefused(port, 2 * (CONCURRENT + QUEUED));
      } finally {
        server.signal("CONT");
      }

      // Linux queues one more than the backlog; at the JVM's default it would be 51.
      assertThat(queued).isGreaterThanOrEqualTo(CONCURRENT + QUEUED);
    }
  }

  /**
   * Opens connections one after another until one is not completed within half a second (its SYN
   * dropped: the queue is full) or {@code most} are open; how many were.
   */
  private static int connectUntilRefused(int port, int most) throws IOException {
    List<Socket> open = new ArrayList<>();
    try {
      while (open.size() < most) {
        Socket socket = new Socket();
        try {
          socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
        } catch (SocketTimeoutException full) {
          socket.close();
          break;
        }
        open.add(socket);
      }
      return open.size();
    } finally {
      for (Socket socket : open) {
        socket.close();
      }
    }
  }

  private static int port(String log) {
    return log.lines()
        .filter(line -> line.startsWith("port="))
        .map(line -> Integer.parseInt(line.substring("port=".length())))
        .findFirst()
        .orElseThrow();
  }
}
