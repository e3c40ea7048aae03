package io.herald.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.herald.devstack.process.ChildJvm;
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void shouldNeverHandOutAPortAnotherRunningJvmHandedOutAndFreeItsPortsOnceThatJvmIsKilled(
      @TempDir Path dir) throws Exception {
    // Two JVMs taking 2,000 ports each among the twenty thousand below the ephemeral range, with
    // no server binding any, would share some 170 of them: what two modules built side by side
    // would do to each other's pipelines.
    try (ChildJvm other =
        ChildJvm.builder("claimant", FreePortClaimant.class.getName())
            .jvmOptions(List.of("-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
            .args("2000")
            .logFile(dir.resolve("claimant.log"))
            .start()) {
      Set<Integer> theirs =
          await()
              .atMost(Duration.ofMinutes(1))
              .until(() -> portsIn(other.logText()), Optional::isPresent)
              .orElseThrow();

      Set<Integer> ours = new HashSet<>();
      for (int i = 0; i < 2_000; i++) {
        ours.add(FreePort.find());
      }

      Set<Integer> shared = new HashSet<>(ours);
      shared.retainAll(theirs);
      assertThat(theirs).hasSize(2_000);
      assertThat(ours).hasSize(2_000);
      assertThat(shared).as("ports handed out by both JVMs").isEmpty();
      other.kill();
      // SIGKILL ran no code of the other JVM's: the kernel dropped its claims as it exited.
      assertThat(theirs).allMatch(FreePort::claim);
    }
  }

  /** The ports of a claimant's {@code ports ...} line, once it has printed it. */
  private static Optional<Set<Integer>> portsIn(String log) {
    return log.lines()
        .filter(line -> line.startsWith("ports "))
        .findFirst()
        .map(
            line ->
                Arrays.stream(line.substring("ports ".length()).split(" "))
                    .map(Integer::valueOf)
                    .collect(Collectors.toSet()));
  }
}
