package io.herald.devstack;

import java.nio.file.Path;

/**
 * A real PostgreSQL server (wal_level=logical) and a real Kafka broker (KRaft) for tests and the
 * local demo.
 *
 * <p>{@link #shared()} starts one stack per JVM on first use and stops it when the JVM exits. By
 * default both servers run from the build's own dependencies (no Docker); with {@code
 * -Dherald.stack=containers} or {@code HERALD_STACK=containers} they run in Docker through
 * Testcontainers.
 *
 * <p>Thread-safe. Tests normally use {@link HeraldIntegrationTest} and {@link StackContext} instead
 * of this interface directly.
 */
public interface HeraldStack {

  /**
   * The system property that, {@code true} before {@link #shared()} first starts the embedded
   * stack, preloads {@code pg_stat_statements} and {@code auto_explain} (plans of slow statements
   * to the server's log, where every autovacuum is logged too) into its PostgreSQL (profiling; off
   * by default, it costs every statement).
   */
  String PG_STAT_STATEMENTS_PROPERTY = SharedStack.STATEMENTS_PROPERTY;

  /**
   * The stack of this JVM, started on first call (blocking until both servers accept connections);
   * later calls return the same instance.
   *
   * @throws IllegalStateException if the stack cannot start; every later call fails the same way
   */
  static HeraldStack shared() {
    return SharedStack.get();
  }

  /**
   * Where the embedded stack unpacks the PostgreSQL binaries ({@code initdb}, {@code pg_ctl},
   * {@code postgres}), for servers of a test's own beside it (a primary and its standby); they are
   * there once the embedded stack has started.
   */
  static Path postgresBinaries() {
    return SharedStack.stackDirectory().resolve("postgres-binaries");
  }

  /** The PostgreSQL server; never null. */
  PostgresServer postgres();

  /** The Kafka broker; never null. */
  KafkaBroker kafka();
}
