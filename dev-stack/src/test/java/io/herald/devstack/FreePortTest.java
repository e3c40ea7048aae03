package io.herald.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortTest {

  @Test
  void shouldPickPortsBelowTheEphemeralRangeThatCanBeBound() throws IOException {
    int ephemeralStart = FreePort.ephemeralStart();
    // Read another way: FreePort once read "3" here (Files.readString on procfs), and every port
    // it gave then came from the ephemeral range.
    try (BufferedReader range =
        new BufferedReader(new FileReader("/proc/sys/net/ipv4/ip_local_port_range"))) {
      assertThat(ephemeralStart).isEqualTo(Integer.parseInt(range.readLine().split("\\s+")[0]));
    }

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

  @Test
  void shouldNeverHandOutAPortTwiceThoughEachIsFreeAgainOnceFound() {
    // Nothing binds these: each is as free after it is found as before, which is how a writer and
    // a consumer once got the same port. A thousand random picks among the twenty thousand below
    // the ephemeral range would repeat some twenty times.
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      ports.add(FreePort.find());
    }

    assertThat(ports).hasSize(1_000);
  }
}
