package io.herald.consumer;

import io.herald.runtime.process.JvmOptions;
import java.util.List;

/**
 * The JVM options recommended for a consumer process (docs/design.md, "Consumer JVM options"), for
 * launchers that start one: the demo and the benchmarks. {@code docker-compose.yml} sets the same
 * list.
 *
 * <p>Beside what every process gets ({@link JvmOptions}): a fixed heap, so the process's memory is
 * bounded by its options and not by the machine's, sized by B5 (full speed) and B7 (a 10-minute
 * Kafka outage and its drain) in BENCHMARKS.md.
 */
public final class ConsumerJvmOptions {

  private ConsumerJvmOptions() {}

  /** The options for a consumer started by a JVM of {@code feature} version (e.g. 25). */
  public static List<String> recommended(int feature) {
    return JvmOptions.recommended(feature, List.of("-Xms160m", "-Xmx160m"), List.of());
  }

  /** The options for a consumer started with the running JVM's {@code java}. */
  public static List<String> recommended() {
    return recommended(Runtime.version().feature());
  }
}
