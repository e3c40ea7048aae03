package io.herald.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FreePortTest {

  @Test
  void shouldPickPortsBelowTheEphemeralRangeThatCanBeBound() throws IOException {
    int ephemeralStart =
        Integer.parseInt(
            Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .trim()
                .split("\\s+")[0]);

    int[] ports = FreePort.distinct(20);

    assertThat(ports).doesNotHaveDuplicates().hasSize(20);
    for (int port : ports) {
      if (ephemeralStart >= 12_000) {
        assertThat(port).isBetween(10_000, ephemeralStart - 1);
      }
      try (ServerSocket server = new ServerSocket()) {
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertThat(server.getLocalPort()).isEqualTo(port);
      }
    }
  }
}
