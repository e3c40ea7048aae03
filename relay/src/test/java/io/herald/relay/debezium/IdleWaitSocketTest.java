package io.herald.relay.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The idle-wait socket over a real loopback connection. */
class IdleWaitSocketTest {

  private ServerSocket server;
  private Socket peer;
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void listen() throws Exception {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void close() throws Exception {
    later.shutdownNow();
    if (peer != null) {
      peer.close();
    }
    server.close();
  }

  private Socket connect(IdleWaitSocketFactory factory) throws Exception {
    Socket socket = factory.createSocket(server.getInetAddress(), server.getLocalPort());
    peer = server.accept();
    return socket;
  }

  private static IdleWaitSocketFactory replicationFactory(String argument) {
    Properties connection = new Properties();
    connection.setProperty("replication", "database");
    connection.setProperty(IdleWaitSocketFactory.ARGUMENT_PROPERTY, argument);
    return new IdleWaitSocketFactory(connection);
  }

  @Test
  void shouldWaitForDataOnTheDriversPeekOnceTheStreamIsQuiet() throws Exception {
    try (Socket socket = connect(replicationFactory("10000,0"))) {
      InputStream in = socket.getInputStream();
      OutputStream out = peer.getOutputStream();
      // The peer writes well after a 1 ms read would have timed out.
      later.schedule(
          () -> {
            out.write(42);
            out.flush();
            return null;
          },
          300,
          TimeUnit.MILLISECONDS);

      socket.setSoTimeout(IdleWaitSocket.DRIVER_PEEK_TIMEOUT_MILLIS);

      assertThat(in.read()).isEqualTo(42);
      assertThat(socket.getSoTimeout()).isEqualTo(IdleWaitSocket.DRIVER_PEEK_TIMEOUT_MILLIS);
    }
  }

  @Test
  void shouldKeepTheOneMillisecondPeekWhileDataIsRecent() throws Exception {
    try (Socket socket = connect(replicationFactory("10000,60000"))) {
      InputStream in = socket.getInputStream();
      peer.getOutputStream().write(new byte[] {1, 2});
      peer.getOutputStream().flush();
      socket.setSoTimeout(0);
      assertThat(in.read()).isEqualTo(1);

      socket.setSoTimeout(IdleWaitSocket.DRIVER_PEEK_TIMEOUT_MILLIS);

      assertThat(in.read()).isEqualTo(2);
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
    }
  }

  @Test
  void shouldReturnFromAQuietPeekAfterTheIdleWait() throws Exception {
    try (Socket socket = connect(replicationFactory("200,0"))) {
      socket.setSoTimeout(IdleWaitSocket.DRIVER_PEEK_TIMEOUT_MILLIS);

      assertThatThrownBy(socket.getInputStream()::read).isInstanceOf(SocketTimeoutException.class);
    }
  }

  @Test
  void shouldPassEveryOtherTimeoutThrough() throws Exception {
    try (Socket socket = connect(replicationFactory("10000,0"))) {
      socket.setSoTimeout(150);

      assertThat(socket.getSoTimeout()).isEqualTo(150);
      // A 150 ms timeout stays 150 ms: the read times out long before the idle wait would.
      long start = System.nanoTime();
      assertThatThrownBy(socket.getInputStream()::read).isInstanceOf(SocketTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void shouldGiveOtherConnectionsAPlainSocket() throws Exception {
    Properties connection = new Properties();
    connection.setProperty(IdleWaitSocketFactory.ARGUMENT_PROPERTY, "200,250");

    assertThat(new IdleWaitSocketFactory(connection).createSocket())
        .isNotInstanceOf(IdleWaitSocket.class);
    assertThat(replicationFactory("200,250").createSocket()).isInstanceOf(IdleWaitSocket.class);
  }

  @Test
  void shouldRefuseAnArgumentThatIsNotTwoDurations() {
    for (String bad : new String[] {"200", "x,250", "1,250", "200,-1"}) {
      assertThatThrownBy(() -> replicationFactory(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("socketFactoryArg=" + bad);
    }
  }
}
