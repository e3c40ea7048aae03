package io.herald.devstack.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashSet;
import java.util.Set;

/** Finds a TCP port that is free now; a server binds it a moment later, so races are possible. */
final class FreePort {

  private FreePort() {}

  /** {@code count} different ports, each free now. */
  static int[] distinct(int count) {
    Set<Integer> ports = new LinkedHashSet<>();
    while (ports.size() < count) {
      ports.add(find());
    }
    return ports.stream().mapToInt(Integer::intValue).toArray();
  }

  static int find() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on the loopback interface", e);
    }
  }
}
