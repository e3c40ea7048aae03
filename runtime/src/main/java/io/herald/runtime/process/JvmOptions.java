package io.herald.runtime.process;

import java.util.ArrayList;
import java.util.List;

/**
 * The shape every Herald process's recommended JVM options share, for launchers that start one (the
 * demo, integration tests, benchmarks; {@code docker-compose.yml} repeats each list, tested to
 * agree): its heap, Serial GC (a parallel collector gained nothing on two shared cores), compact
 * object headers where the JVM has them as a product option (Java 25 and later: less heap per
 * object), the process's own tuning, and exit on {@code OutOfMemoryError}, so a supervisor restarts
 * the process instead of it limping on. Each process states only its heap and tuning.
 */
public final class JvmOptions {

  /** The first Java feature release where compact object headers are a product option. */
  static final int COMPACT_HEADERS_SINCE = 25;

  private JvmOptions() {}

  /**
   * @param feature the Java feature version of the {@code java} that will run the process
   * @param heap the heap options ({@code -Xms}, {@code -Xmx}, {@code -Xmn})
   * @param tuning options of this process's own, after the common ones; may be empty
   */
  public static List<String> recommended(int feature, List<String> heap, List<String> tuning) {
    List<String> options = new ArrayList<>(heap);
    options.add("-XX:+UseSerialGC");
    if (feature >= COMPACT_HEADERS_SINCE) {
      options.add("-XX:+UseCompactObjectHeaders");
    }
    options.addAll(tuning);
    options.add("-XX:+ExitOnOutOfMemoryError");
    return List.copyOf(options);
  }
}
