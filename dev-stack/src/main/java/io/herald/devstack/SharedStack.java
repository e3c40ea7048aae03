package io.herald.devstack;

import io.herald.devstack.containers.ContainerStack;
import io.herald.devstack.embedded.EmbeddedStack;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts the JVM's one {@link HeraldStack} lazily and stops it when the JVM exits. */
final class SharedStack {

  static final String KIND_PROPERTY = "herald.stack";
  static final String KIND_ENV = "HERALD_STACK";
  static final String DIR_PROPERTY = "herald.stack.dir";

  /**
   * {@code true} preloads {@code pg_stat_statements} into the embedded PostgreSQL, for a benchmark
   * that profiles what the server spends its time on, and {@code auto_explain}, which writes the
   * plan of every statement that ran {@link #SLOW_STATEMENT} or longer to the server's log
   * (postgres.log in the stack directory), where every autovacuum and autoanalyze is logged too (a
   * stall in a long run can then be set beside the vacuum that ran then); off by default (it costs
   * every statement).
   */
  static final String STATEMENTS_PROPERTY = "herald.stack.pg-stat-statements";

  /** What {@code auto_explain} counts as slow: a plan worth reading, rare enough to log. */
  static final String SLOW_STATEMENT = "50ms";

  private static final Logger LOG = LoggerFactory.getLogger(SharedStack.class);
  private static final AtomicInteger TEST_CLASSES = new AtomicInteger();

  private static HeraldStack stack;
  private static Duration startUp;
  private static RuntimeException startFailure;

  private SharedStack() {}

  static synchronized HeraldStack get() {
    if (stack != null) {
      return stack;
    }
    if (startFailure != null) {
      // One failed start is enough: retrying per test class would multiply the time to failure.
      throw new IllegalStateException("the Herald dev stack failed to start earlier", startFailure);
    }
    long started = System.nanoTime();
    try {
      String kind = kind();
      AutoCloseableStack created =
          switch (kind) {
            case "embedded" ->
                AutoCloseableStack.of(EmbeddedStack.start(stackDirectory(), postgresSettings()));
            case "containers" -> AutoCloseableStack.of(ContainerStack.start());
            default ->
                throw new IllegalArgumentException(
                    KIND_PROPERTY
                        + " (or "
                        + KIND_ENV
                        + ") must be 'embedded' or 'containers', was '"
                        + kind
                        + "'");
          };
      startUp = Duration.ofNanos(System.nanoTime() - started);
      report(
          "%s stack started in %d ms (PostgreSQL %s on port %d, Kafka on %s)",
          kind,
          startUp.toMillis(),
          created.stack().postgres().version(),
          created.stack().postgres().port(),
          created.stack().kafka().bootstrapServers());
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> stopAtExit(created), "herald-stack-stop"));
      stack = created.stack();
      return stack;
    } catch (RuntimeException e) {
      startFailure = e;
      throw e;
    }
  }

  /** Counts test classes that used the stack, for the summary printed at JVM exit. */
  static void testClassStarted() {
    TEST_CLASSES.incrementAndGet();
  }

  static String kind() {
    String value = System.getProperty(KIND_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv(KIND_ENV);
    }
    return value == null || value.isBlank() ? "embedded" : value.trim().toLowerCase(Locale.ROOT);
  }

  /** The embedded server's settings beyond the stack's own: {@link #STATEMENTS_PROPERTY}. */
  static Map<String, String> postgresSettings() {
    return Boolean.getBoolean(STATEMENTS_PROPERTY)
        ? Map.of(
            "shared_preload_libraries",
            "pg_stat_statements,auto_explain",
            "pg_stat_statements.max",
            "1000",
            "auto_explain.log_min_duration",
            SLOW_STATEMENT,
            "log_autovacuum_min_duration",
            "0")
        : Map.of();
  }

  /** {@code herald.stack.dir} (Surefire/Failsafe set it to target/herald-stack) or target/. */
  static Path stackDirectory() {
    String configured = System.getProperty(DIR_PROPERTY);
    Path dir =
        configured == null || configured.isBlank()
            ? Path.of("target", "herald-stack")
            : Path.of(configured);
    return dir.toAbsolutePath();
  }

  /**
   * Prints the suite summary if this JVM started the stack. Called by {@link HeraldSuiteListener}
   * when the test plan ends: output of a shutdown hook is lost in a Surefire fork.
   */
  static synchronized void reportSuiteFinished(Duration suite) {
    if (stack == null) {
      return;
    }
    report(
        "suite finished in %.1f s (JVM up %.1f s): %d test classes used the stack, whose start-up"
            + " took %d ms",
        suite.toMillis() / 1000.0,
        ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0,
        TEST_CLASSES.get(),
        startUp.toMillis());
  }

  private static void stopAtExit(AutoCloseableStack created) {
    try {
      created.close();
      LOG.info("Herald dev stack stopped");
    } catch (Exception e) {
      LOG.error("stopping the Herald dev stack failed", e);
    }
  }

  private static void report(String format, Object... args) {
    String line = String.format(Locale.ROOT, format, args);
    LOG.info(line);
    System.out.println("[herald-dev-stack] " + line);
  }

  /** Pairs the public stack with its close action, which the interface does not expose. */
  private record AutoCloseableStack(HeraldStack stack, AutoCloseable closer)
      implements AutoCloseable {

    static <S extends HeraldStack & AutoCloseable> AutoCloseableStack of(S stack) {
      return new AutoCloseableStack(stack, stack);
    }

    @Override
    public void close() throws Exception {
      closer.close();
    }
  }
}
