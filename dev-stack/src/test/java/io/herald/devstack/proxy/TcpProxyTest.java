package io.herald.devstack.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy against a real echo server over real loopback sockets. */
class TcpProxyTest {

  private EchoServer echo;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = TcpProxy.start("echo", echo.address());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void shouldForwardBothWaysWhenPassingThrough() throws IOException {
    try (Socket client = connect()) {
      assertThat(roundTrip(client, "hello")).isEqualTo("hello");
      assertThat(roundTrip(client, "again")).isEqualTo("again");
    }
    // A chunk is counted once written: the echo may reach the client a moment before.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              TcpProxy.Counters counters = proxy.counters();
              assertThat(counters.connections()).isEqualTo(1);
              assertThat(counters.bytesToTarget()).isEqualTo(10);
              assertThat(counters.bytesToClients()).isEqualTo(10);
            });
  }

  @Test
  void shouldAddTheDelayEachWayWhenDelayed() throws IOException {
    Duration delay = Duration.ofMillis(300);
    try (Socket client = connect()) {
      roundTrip(client, "warm-up");
      proxy.delay(delay);
      long started = System.nanoTime();
      assertThat(roundTrip(client, "slow")).isEqualTo("slow");
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      // Once to the echo server, once back; never an upper bound on a loaded machine.
      assertThat(took).isGreaterThanOrEqualTo(delay.multipliedBy(2));
    }
  }

  @Test
  void shouldResetTheClientsConnectionWhenResetAll() throws IOException {
    try (Socket client = connect()) {
      roundTrip(client, "before");
      proxy.resetAll();
      InputStream in = client.getInputStream();
      assertThatThrownBy(in::read)
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
    assertThat(proxy.counters().resets()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> echo.openConnections() == 0);
  }

  @Test
  void shouldHoldEveryByteWhileFrozenAndDeliverThemWhenHealed() throws IOException {
    try (Socket open = connect()) {
      roundTrip(open, "before");
      proxy.freeze();
      send(open, "held");
      try (Socket fresh = connect()) {
        send(fresh, "new");
        // A frozen link is silent: the reads time out, nothing arrives.
        assertNothingArrives(open);
        assertNothingArrives(fresh);
        assertThat(echo.bytesReceived()).isEqualTo(6);
        proxy.heal();
        assertThat(receive(open, 4)).isEqualTo("held");
        assertThat(receive(fresh, 3)).isEqualTo("new");
      }
    }
  }

  @Test
  void shouldFreeThePortAndStopItsThreadsWhenClosed() throws IOException {
    Socket client = connect();
    roundTrip(client, "open");
    proxy.freeze();
    Socket frozen = connect();
    await().atMost(Duration.ofSeconds(10)).until(() -> proxy.counters().open() == 2);
    int port = proxy.port();
    proxy.close();
    assertThat(proxy.liveThreads()).isZero();
    try (ServerSocket again = new ServerSocket()) {
      again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
    assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    client.close();
    frozen.close();
  }

  @Test
  void shouldRefuseAConnectionBeyondTheCapWhileTheOthersStayOpen() throws IOException {
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < TcpProxy.MAX_CONNECTIONS; i++) {
        open.add(connect());
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> proxy.counters().open() == TcpProxy.MAX_CONNECTIONS);
      // The RST may come while the client still connects, or on its first read.
      assertThatThrownBy(
              () -> {
                try (Socket oneTooMany = connect()) {
                  oneTooMany.getInputStream().read();
                }
              })
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
      assertThat(proxy.counters().refused()).isEqualTo(1);
      assertThat(roundTrip(open.get(0), "still")).isEqualTo("still");
    } finally {
      for (Socket socket : open) {
        socket.close();
      }
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port()), 5_000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String roundTrip(Socket socket, String text) throws IOException {
    send(socket, text);
    return receive(socket, text.length());
  }

  private static void send(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String receive(Socket socket, int length) throws IOException {
    byte[] bytes = socket.getInputStream().readNBytes(length);
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  private static void assertNothingArrives(Socket socket) throws IOException {
    int timeout = socket.getSoTimeout();
    socket.setSoTimeout(500);
    try {
      assertThatThrownBy(() -> socket.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
    } finally {
      socket.setSoTimeout(timeout);
    }
  }

  /** Echoes every byte back on each connection; counts what it received. */
  private static final class EchoServer implements AutoCloseable {
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong received = new AtomicLong();
    private final Thread acceptor;

    EchoServer() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = Thread.ofVirtual().name("echo-accept").start(this::accept);
    }

    InetSocketAddress address() {
      return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    long bytesReceived() {
      return received.get();
    }

    int openConnections() {
      return open.size();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          open.add(socket);
          Thread.ofVirtual().name("echo").start(() -> echo(socket));
        } catch (IOException e) {
          return;
        }
      }
    }

    private void echo(Socket socket) {
      try (socket) {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        byte[] buffer = new byte[1024];
        int read;
        while ((read = in.read(buffer)) >= 0) {
          received.addAndGet(read);
          out.write(buffer, 0, read);
        }
      } catch (IOException e) {
        // The proxy reset the connection: the test looks at the client's side.
      } finally {
        open.remove(socket);
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket socket : open) {
        socket.close();
      }
      acceptor.interrupt();
    }
  }
}
