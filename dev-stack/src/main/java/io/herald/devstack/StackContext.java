package io.herald.devstack;

import javax.sql.DataSource;

/**
 * What one test class gets from the shared stack: its own database and names nobody else uses.
 *
 * <p>Names are unique per test class and stable within it: {@code topic("events")} returns the same
 * name on every call of the same class. Topics are not created; call {@code
 * stack().kafka().createTopic(...)}. When the class finishes, the replication slots of its database
 * are dropped so they do not hold WAL for the rest of the suite. Thread-safe.
 */
public interface StackContext {

  /**
   * A context on {@link HeraldStack#shared()} for a program outside JUnit (the benchmarks' {@code
   * main} classes): a fresh database and names derived from {@code owner}, as a test class gets.
   * Its replication slots are not dropped; they go with the stack when the JVM exits.
   */
  static StackContext create(Class<?> owner) {
    return ClassStackContext.create(HeraldStack.shared(), owner);
  }

  /** The name of the database created for this test class. */
  String database();

  /** The JDBC URL of {@link #database()}. */
  String jdbcUrl();

  /** A superuser of the server (may create publications and slots). */
  String user();

  /** The password of {@link #user()}. */
  String password();

  /** A non-pooling data source on {@link #database()}; each call returns a new one. */
  DataSource dataSource();

  /** The Kafka {@code bootstrap.servers}. */
  String bootstrapServers();

  /** A topic name unique to this class, derived from {@code base} (not created). */
  String topic(String base);

  /** A consumer group id unique to this class, derived from {@code base}. */
  String groupId(String base);

  /** A publication name unique to this class (for {@code CaptureSettings}). */
  String publication();

  /** A replication slot name unique to this class (for {@code CaptureSettings}). */
  String slot();

  /** The shared stack, for outage tests ({@code stack().postgres().stop()}). */
  HeraldStack stack();
}
