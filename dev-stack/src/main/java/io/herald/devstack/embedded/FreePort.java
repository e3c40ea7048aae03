package io.herald.devstack.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Finds a TCP port that is free now; a server binds it a moment later, so races are possible. */
final class FreePort {

  private FreePort() {}

  static int find() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on the loopback interface", e);
    }
  }
}
