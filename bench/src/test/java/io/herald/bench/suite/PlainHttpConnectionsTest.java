package io.herald.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PlainHttpConnectionsTest {

  /**
   * A keep-alive HTTP/1.1 server that counts its connections; it answers {@code POST /close} with
   * {@code Connection: close}, and holds every answer until {@link #release} opens (to keep several
   * requests in flight at once).
   */
  private ServerSocket server;

  private final AtomicInteger accepted = new AtomicInteger();
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private volatile CountDownLatch release = new CountDownLatch(0);

  @BeforeEach
  void start() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.submit(
        () -> {
          while (!server.isClosed()) {
            Socket socket = server.accept();
            accepted.incrementAndGet();
            threads.submit(() -> serve(socket));
          }
          return null;
        });
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    threads.shutdownNow();
  }

  @Test
  void shouldSendOneAfterAnotherOnOneConnection() throws Exception {
    try (PlainHttpConnections http = connections()) {
      for (int i = 0; i < 5; i++) {
        PlainHttpClient.Response response = http.post("/v1/x", "t", "{\"n\":" + i + "}");
        assertThat(response.status()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("{\"n\":" + i + "}");
      }
    }

    assertThat(accepted).hasValue(1);
  }

  @Test
  void shouldOpenAConnectionPerConcurrentSendAndReuseThemAfterwards() throws Exception {
    release = new CountDownLatch(1);
    try (PlainHttpConnections http = connections()) {
      List<Future<PlainHttpClient.Response>> sends = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        sends.add(threads.submit(() -> http.post("/v1/x", "t", "{}")));
      }
      await().until(() -> accepted.get() == 3);
      release.countDown();
      for (Future<PlainHttpClient.Response> send : sends) {
        assertThat(send.get(10, TimeUnit.SECONDS).status()).isEqualTo(201);
      }

      for (int i = 0; i < 3; i++) {
        http.post("/v1/x", "t", "{}");
      }
    }

    assertThat(accepted).hasValue(3);
  }

  @Test
  void shouldNotReuseAConnectionTheServerClosed() throws Exception {
    try (PlainHttpConnections http = connections()) {
      assertThat(http.post("/close", "t", "{}").status()).isEqualTo(201);
      assertThat(http.post("/v1/x", "t", "{}").status()).isEqualTo(201);
    }

    assertThat(accepted).hasValue(2);
  }

  private PlainHttpConnections connections() {
    return new PlainHttpConnections("127.0.0.1", server.getLocalPort());
  }

  private Void serve(Socket socket) throws Exception {
    try (socket) {
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
      OutputStream out = socket.getOutputStream();
      for (String request = in.readLine(); request != null; request = in.readLine()) {
        int length = 0;
        for (String header = in.readLine(); !header.isEmpty(); header = in.readLine()) {
          if (header.toLowerCase().startsWith("content-length:")) {
            length = Integer.parseInt(header.substring("content-length:".length()).trim());
          }
        }
        char[] body = new char[length];
        for (int read = 0; read < length; ) {
          read += in.read(body, read, length - read);
        }
        release.await();
        boolean close = request.startsWith("POST /close ");
        byte[] answer = new String(body).getBytes(StandardCharsets.UTF_8);
        out.write(
            ("HTTP/1.1 201 Created\r\nContent-Length: "
                    + answer.length
                    + (close ? "\r\nConnection: close" : "")
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(answer);
        out.flush();
        if (close) {
          return null;
        }
      }
      return null;
    }
  }
}
