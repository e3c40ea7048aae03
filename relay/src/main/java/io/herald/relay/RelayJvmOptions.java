package io.herald.relay;

import io.herald.runtime.process.JvmOptions;
import java.util.List;

/**
 * The JVM options recommended for a relay process (docs/design.md, "JVM options"), for launchers
 * that start one: the demo, the integration tests and benchmarks. {@code docker-compose.yml} sets
 * the same list.
 *
 * <p>Beside what every process gets ({@link JvmOptions}): a drain allocates several KiB per event,
 * nearly all dead by the next young collection, so the young generation is most of a small fixed
 * heap; and a smaller {@code InlineSmallCode} (1000 bytes, against x64's 2500), so the JIT no
 * longer inlines callees it has already compiled into large methods: a fresh relay's C2 spends far
 * less CPU compiling and drains a backlog faster (docs/benchmarks-history.md, "Relay: draining a
 * backlog").
 */
public final class RelayJvmOptions {

  private RelayJvmOptions() {}

  /** The options for a relay started by a JVM of {@code feature} version (e.g. 25). */
  public static List<String> recommended(int feature) {
    return JvmOptions.recommended(
        feature, List.of("-Xms160m", "-Xmx160m", "-Xmn96m"), List.of("-XX:InlineSmallCode=1000"));
  }

  /** The options for a relay started with the running JVM's {@code java}. */
  public static List<String> recommended() {
    return recommended(Runtime.version().feature());
  }
}
