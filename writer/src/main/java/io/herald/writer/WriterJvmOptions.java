package io.herald.writer;

import io.herald.runtime.process.JvmOptions;
import java.util.List;

/**
 * The JVM options recommended for a writer process (docs/design.md, "Writer JVM options"), for
 * launchers that start one: the demo and the benchmarks. {@code docker-compose.yml} sets the same
 * list.
 *
 * <p>Beside what every process gets ({@link JvmOptions}): a fixed heap, so the process's memory is
 * bounded by its options and not by the machine's (the image's default {@code
 * -XX:MaxRAMPercentage=75} would let it grow to three quarters of the container's), sized by B5
 * (the writer's peak RSS at full speed) in BENCHMARKS.md.
 */
public final class WriterJvmOptions {

  private WriterJvmOptions() {}

  /** The options for a writer started by a JVM of {@code feature} version (e.g. 25). */
  public static List<String> recommended(int feature) {
    return JvmOptions.recommended(feature, List.of("-Xms160m", "-Xmx160m"), List.of());
  }

  /** The options for a writer started with the running JVM's {@code java}. */
  public static List<String> recommended() {
    return recommended(Runtime.version().feature());
  }
}
