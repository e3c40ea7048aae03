package io.herald.relay.it;

import io.herald.devstack.ShippedConfig;
import io.herald.devstack.process.ChildJvm;
import io.herald.relay.RelayJvmOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * A relay ({@code io.herald.relay.RelayMain} with a generated properties file) in a {@link
 * ChildJvm}, logging with the shipped {@code connect-config/logback-relay.xml}, so tests can kill
 * it for real. What it adds to the launcher: the relay's JVM option sets, the jar-only class path a
 * JDK AOT cache needs, {@link #terminate()} failing the test when SIGTERM does not stop the relay,
 * and {@link #close()} as SIGKILL (a test that wants a clean stop says so).
 */
public final class RelayChild implements AutoCloseable {

  /** Test JVM options: small heap, quick start (C1 only) on the busy CI box. */
  static final List<String> TEST_JVM =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** The JVM options recommended for production ({@link RelayJvmOptions}). */
  static final List<String> PRODUCTION_JVM = RelayJvmOptions.recommended();

  private static final Duration TERMINATE_GRACE = Duration.ofSeconds(90);

  private final ChildJvm jvm;

  private RelayChild(ChildJvm jvm) {
    this.jvm = jvm;
  }

  static RelayChild start(Path properties, Path log) throws IOException {
    return start(properties, log, TEST_JVM);
  }

  static RelayChild start(Path properties, Path log, List<String> jvmOptions) throws IOException {
    ChildJvm.Builder builder =
        ChildJvm.builder("relay", "io.herald.relay.RelayMain")
            .jvmOptions(jvmOptions)
            .logbackConfig(ShippedConfig.of("relay").logbackFile())
            .args(properties.toString())
            .logFile(log);
    if (jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:AOTCache"))) {
      builder.classPath(ChildJvm.jarsOnly(ChildJvm.currentClassPath()));
    }
    return new RelayChild(builder.start());
  }

  public long pid() {
    return jvm.pid();
  }

  boolean isAlive() {
    return jvm.isAlive();
  }

  /** SIGKILL: no shutdown hook runs, no offset is flushed. */
  void kill() throws InterruptedException {
    jvm.kill();
  }

  /** SIGTERM, then waits for the process to exit; returns its exit code. */
  public int terminate() throws InterruptedException {
    OptionalInt exit = jvm.stop(TERMINATE_GRACE);
    if (exit.isEmpty()) {
      throw new AssertionError(
          "relay did not stop within " + TERMINATE_GRACE + " of SIGTERM; log: " + jvm.logFile());
    }
    return exit.getAsInt();
  }

  /** Waits for the process to exit on its own; returns the exit code or -1 on timeout. */
  int awaitExit(long seconds) throws InterruptedException {
    return jvm.awaitExit(Duration.ofSeconds(seconds)).orElse(-1);
  }

  String log() {
    return jvm.logText();
  }

  Path logFile() {
    return jvm.logFile();
  }

  @Override
  public void close() throws InterruptedException {
    if (jvm.isAlive()) {
      kill();
    }
  }
}
