package io.herald.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * Finds a TCP port of the loopback interface that is free now, for a server to bind a moment later.
 *
 * <p>The ports come from below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}),
 * never from it: tests stop a server and start it again on the same port, and a port of the
 * ephemeral range may meanwhile become the local end of any outgoing connection on the machine (a
 * JDBC or Kafka client's), so that the restarted server cannot bind it, or, worse, a health check
 * is answered by someone else. Below the range only listeners compete, and a listener's port is
 * taken at random among thousands. Where the range starts too low to leave room, the kernel picks
 * (port 0).
 *
 * <p>A port is handed out once per JVM. Being free now says nothing of a port handed out a moment
 * ago whose server has not bound it yet, or has stopped to start again on it: two random picks
 * among twenty thousand meet often enough over a suite's hundreds of pipelines, and a fault run
 * once gave a writer and a consumer the same port, so the consumer could not start while the writer
 * answered its health checks.
 *
 * <p>And a port is handed out once among the JVMs of one user on the machine: the build runs two
 * modules at a time, each test JVM with its own pipelines and stack, and a port one JVM has found
 * looks just as free to the other until its server binds it, or while that server is down to be
 * restarted on it. Each JVM claims its ports as byte-range locks on one file ({@code
 * /tmp/herald-free-ports-<user>.lock}, offset = port), which the kernel drops when the JVM exits,
 * however it ends, so no claim outlives its JVM. Thread-safe.
 */
public final class FreePort {

  private static final int LOWEST = 10_000;
  private static final int MIN_ROOM = 2_000;
  private static final int TRIES = 200;
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /**
   * The file whose byte {@code port} a JVM locks for each port it hands out: the one record of the
   * ports handed out, within this JVM (its lock table refuses a second lock on a byte) and among
   * the user's JVMs (the kernel refuses another process's).
   */
  static final Path CLAIMS =
      Path.of(
          Files.isDirectory(Path.of("/tmp")) ? "/tmp" : System.getProperty("java.io.tmpdir"),
          "herald-free-ports-" + System.getProperty("user.name") + ".lock");

  private static final FileChannel CLAIMED = openClaims();

  private FreePort() {}

  /** {@code count} ports, each free now; different, as every port {@link #find()} hands out is. */
  public static int[] distinct(int count) {
    return IntStream.range(0, count).map(i -> find()).toArray();
  }

  /** One port, free now and handed out before by no running JVM of this user, this one included. */
  public static int find() {
    int ephemeralStart = ephemeralStart();
    if (ephemeralStart - LOWEST >= MIN_ROOM) {
      for (int i = 0; i < TRIES; i++) {
        int candidate = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralStart);
        if (bindable(candidate) && claim(candidate)) {
          return candidate;
        }
      }
    }
    for (int i = 0; i < TRIES; i++) {
      int picked;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        picked = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("no free TCP port on the loopback interface", e);
      }
      if (claim(picked)) {
        return picked;
      }
    }
    throw new IllegalStateException(
        "no TCP port on the loopback interface that no JVM of this user has claimed in " + CLAIMS);
  }

  /** Claims {@code port} for this JVM; false if this JVM or another of the user's holds it. */
  static boolean claim(int port) {
    try {
      return CLAIMED.tryLock(port, 1, false) != null;
    } catch (OverlappingFileLockException e) {
      // This JVM handed it out before: its own lock on the byte.
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("claiming port " + port + " in " + CLAIMS + " failed", e);
    }
  }

  private static FileChannel openClaims() {
    try {
      // Never closed: closing the channel would drop every claim of this JVM.
      return FileChannel.open(
          CLAIMS, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the port claims file " + CLAIMS, e);
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      // Taken: another candidate.
      return false;
    }
  }

  /** The first port of the ephemeral range; Linux's default (32768) where it cannot be read. */
  static int ephemeralStart() {
    try {
      // Not Files.readString: on JDK 25 it returned "3" for this file (procfs reports size 0), and
      // every port then came from the ephemeral range.
      return Integer.parseInt(Files.readAllLines(RANGE).get(0).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no /proc: the usual start of the range.
      return 32_768;
    }
  }
}
