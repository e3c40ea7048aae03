package io.herald.relay;

import java.util.List;

/**
 * The JVM options recommended for a relay process (docs/design.md, "JVM options"), for launchers
 * that start one: the demo, the integration tests and benchmarks. {@code docker-compose.yml} sets
 * the same list.
 *
 * <p>A drain allocates several KiB per event, nearly all dead by the next young collection, so the
 * young generation is most of a small fixed heap; Serial GC, since a parallel collector gained
 * nothing on two shared cores; compact object headers where the JVM has them as a product option
 * (Java 25 and later); a smaller {@code InlineSmallCode} (1000 bytes, against x64's 2500), so the
 * JIT no longer inlines callees it has already compiled into large methods: a fresh relay's C2
 * spends far less CPU compiling and drains a backlog faster (docs/benchmarks-history.md, "Relay:
 * draining a backlog"); and exit on {@code OutOfMemoryError}, so a supervisor restarts the relay
 * instead of it limping on.
 */
public final class RelayJvmOptions {

  private RelayJvmOptions() {}

  /** The options for a relay started by a JVM of {@code feature} version (e.g. 25). */
  public static List<String> recommended(int feature) {
    return feature >= 25
        ? List.of(
            "-Xms160m",
            "-Xmx160m",
            "-Xmn96m",
            "-XX:+UseSerialGC",
            "-XX:+UseCompactObjectHeaders",
            "-XX:InlineSmallCode=1000",
            "-XX:+ExitOnOutOfMemoryError")
        : List.of(
            "-Xms160m",
            "-Xmx160m",
            "-Xmn96m",
            "-XX:+UseSerialGC",
            "-XX:InlineSmallCode=1000",
            "-XX:+ExitOnOutOfMemoryError");
  }

  /** The options for a relay started with the running JVM's {@code java}. */
  public static List<String> recommended() {
    return recommended(Runtime.version().feature());
  }
}
